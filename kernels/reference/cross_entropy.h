// Reference softmax cross-entropy over classes (sequence classification; the masked-LM loss is the
// same over the vocabulary at the masked positions), mean over the rows, in double.
#pragma once

#include <cstdint>
#include <vector>

#include "bert/tensor.h"

namespace nsim::kernels::reference {

struct CrossEntropy {
    double loss = 0;  // mean over rows of log(sum_j exp(z_j)) - z_label
    Tensor logits;    // dL/dz = (softmax(z) - onehot(label)) / rows
};

// logits [rows, classes], one label in [0, classes) per row.
CrossEntropy cross_entropy(const Tensor& logits, const std::vector<int32_t>& labels);

}  // namespace nsim::kernels::reference
