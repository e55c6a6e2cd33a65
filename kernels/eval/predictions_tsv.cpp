#include "eval/predictions_tsv.h"

#include <fstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "common/input_error.h"
#include "eval/classification_metrics.h"

namespace nsim::kernels {

void write_predictions_tsv(std::ostream& out, const std::vector<Prediction>& predictions) {
    const size_t classes = predictions.empty() ? 2 : predictions.front().logits.size();
    out << "index\tprediction";
    for (size_t c = 0; c < classes; ++c) out << "\tlogit_" << c;
    out << "\n";
    for (const Prediction& p : predictions) {
        fmt::print(out, "{}\t{}", p.index, p.label);
        for (float logit : p.logits) fmt::print(out, "\t{}", logit);
        out << "\n";
    }
}

void write_predictions_tsv(const std::filesystem::path& path, const std::vector<Prediction>& predictions) {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot create the predictions file", path.string()));
    write_predictions_tsv(out, predictions);
    out.flush();
    if (!out) throw InputError(fmt::format("{}: write failed", path.string()));
}

std::vector<Prediction> predictions_from_logits(const std::vector<float>& logits, size_t classes) {
    const std::vector<int> labels = argmax_rows(logits, classes);
    std::vector<Prediction> out;
    for (size_t i = 0; i < labels.size(); ++i)
        out.push_back({i, labels[i], std::vector<float>(logits.begin() + i * classes, logits.begin() + (i + 1) * classes)});
    return out;
}

}  // namespace nsim::kernels
