// The --predictions file of `run --pairs`: a header "index<TAB>prediction<TAB>logit_0<TAB>logit_1...", then
// one line per pair: its 0-based index in the pairs file, the predicted label, and the logits (shortest
// text that reads back as the same fp32 value).
#pragma once

#include <filesystem>
#include <ostream>
#include <vector>

namespace nsim::kernels {

struct Prediction {
    size_t index = 0;
    int label = 0;
    std::vector<float> logits;
};

void write_predictions_tsv(std::ostream& out, const std::vector<Prediction>& predictions);
// InputError when the file cannot be written.
void write_predictions_tsv(const std::filesystem::path& path, const std::vector<Prediction>& predictions);

// Predictions from logits (rows * classes) by argmax, indexed from 0.
std::vector<Prediction> predictions_from_logits(const std::vector<float>& logits, size_t classes);

}  // namespace nsim::kernels
