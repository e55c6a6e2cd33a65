#include "reference/cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

CrossEntropy cross_entropy(const Tensor& logits, const std::vector<int32_t>& labels) {
    const size_t rows = logits.rows(), classes = logits.cols();
    if (labels.size() != rows)
        throw std::invalid_argument(fmt::format("cross_entropy: {} labels for logits {}", labels.size(),
                                                shape_to_string(logits.shape)));
    CrossEntropy out;
    out.logits = Tensor(logits.shape);
    for (size_t r = 0; r < rows; ++r) {
        if (labels[r] < 0 || size_t(labels[r]) >= classes)
            throw std::invalid_argument(fmt::format("cross_entropy: label {} outside [0, {})", labels[r], classes));
        double top = logits.at(r, 0);
        for (size_t c = 1; c < classes; ++c) top = std::max(top, double(logits.at(r, c)));
        double sum = 0;
        for (size_t c = 0; c < classes; ++c) sum += std::exp(logits.at(r, c) - top);
        out.loss += (std::log(sum) + top - logits.at(r, size_t(labels[r]))) / double(rows);
        for (size_t c = 0; c < classes; ++c) {
            const double p = std::exp(logits.at(r, c) - top) / sum;
            out.logits.at(r, c) = float((p - (size_t(labels[r]) == c ? 1.0 : 0.0)) / double(rows));
        }
    }
    return out;
}

}  // namespace nsim::kernels::reference
