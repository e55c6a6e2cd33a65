// What `run --pairs` prints: how many pairs went through how many executions, accuracy and F1 against
// the file's labels (when it has them), and the simulated time - as text or one JSON object.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "eval/classification_metrics.h"

namespace nsim::tools {

struct PairsOutcome {
    std::string pairs_file, model, instance;
    size_t pairs = 0, executions = 0, padding_sequences = 0, truncated = 0;
    uint32_t seq_len = 0, copies = 0, batch = 0;
    std::optional<kernels::BinaryMetrics> metrics;  // absent for a file without labels
    double device_s = 0;      // engines, summed over the executions
    double end_to_end_s = 0;  // host embedding + PCIe + runtime + engines, summed
    std::string predictions_file;  // empty: none written
};

void print_pairs_text(std::ostream& out, const PairsOutcome& outcome);
void print_pairs_json(std::ostream& out, const PairsOutcome& outcome);

}  // namespace nsim::tools
