// Reference fully-connected layer: y = x W^T + b with Hugging Face's [out, in] weight layout.
#pragma once

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

// x [rows, in] -> [rows, out]. Products are summed in double, so the reference is closer to exact than
// any fp32 kernel it checks.
Tensor linear(const Tensor& x, const LinearWeights& w);

// a + b elementwise (the residual connections); shapes must match.
Tensor add(const Tensor& a, const Tensor& b);

}  // namespace nsim::kernels::reference
