#include "eval/classification_metrics.h"

#include <fmt/format.h>

#include "common/input_error.h"

namespace nsim::kernels {

BinaryMetrics binary_metrics(const std::vector<int>& predictions, const std::vector<int>& labels) {
    if (predictions.size() != labels.size() || labels.empty())
        throw InputError(fmt::format("metrics: {} predictions for {} labels", predictions.size(), labels.size()));
    BinaryMetrics m;
    m.count = labels.size();
    for (size_t i = 0; i < labels.size(); ++i) {
        const bool predicted = predictions[i] == 1;
        const bool actual = labels[i] == 1;
        if (predicted && actual) ++m.true_positive;
        else if (predicted) ++m.false_positive;
        else if (actual) ++m.false_negative;
        else ++m.true_negative;
    }
    m.accuracy = static_cast<double>(m.true_positive + m.true_negative) / static_cast<double>(m.count);
    const size_t predicted_positive = m.true_positive + m.false_positive;
    const size_t actual_positive = m.true_positive + m.false_negative;
    if (predicted_positive) m.precision = static_cast<double>(m.true_positive) / static_cast<double>(predicted_positive);
    if (actual_positive) m.recall = static_cast<double>(m.true_positive) / static_cast<double>(actual_positive);
    if (m.precision + m.recall > 0) m.f1 = 2 * m.precision * m.recall / (m.precision + m.recall);
    return m;
}

std::vector<int> argmax_rows(const std::vector<float>& logits, size_t classes) {
    std::vector<int> out;
    if (classes == 0) return out;
    for (size_t row = 0; row + classes <= logits.size(); row += classes) {
        size_t best = 0;
        for (size_t c = 1; c < classes; ++c)
            if (logits[row + c] > logits[row + best]) best = c;
        out.push_back(static_cast<int>(best));
    }
    return out;
}

}  // namespace nsim::kernels
