// Accuracy and F1 of binary predictions against labels, as GLUE reports them for MRPC (F1 of the
// positive class, label 1).
#pragma once

#include <cstddef>
#include <vector>

namespace nsim::kernels {

struct BinaryMetrics {
    size_t count = 0;
    size_t true_positive = 0, false_positive = 0, true_negative = 0, false_negative = 0;
    double accuracy = 0;
    double precision = 0;  // 0 when nothing was predicted positive
    double recall = 0;     // 0 when no label is positive
    double f1 = 0;         // 0 when precision + recall is 0
};

// Labels and predictions are 0/1; InputError if the lengths differ or are 0.
BinaryMetrics binary_metrics(const std::vector<int>& predictions, const std::vector<int>& labels);

// Index of the largest logit of each row (the first on ties): logits is rows * classes row-major.
std::vector<int> argmax_rows(const std::vector<float>& logits, size_t classes);

}  // namespace nsim::kernels
