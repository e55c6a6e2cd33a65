// Reference LayerNorm over the last dimension: (x - mean) / sqrt(var + eps) * gamma + beta, with the
// biased variance, as torch.nn.LayerNorm computes it.
#pragma once

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

// x [rows, hidden]; statistics in double.
Tensor layer_norm(const Tensor& x, const LayerNormWeights& w, double eps);

}  // namespace nsim::kernels::reference
