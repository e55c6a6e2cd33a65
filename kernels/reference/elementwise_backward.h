// Reference gradients of the element-wise and row-wise pieces of BERT given dL/dy, in double:
// the erf GELU, tanh (from its output, as the pooler's backward has it), softmax along rows.
#pragma once

#include "bert/tensor.h"

namespace nsim::kernels::reference {

double gelu_erf_derivative(double x);
// dy * gelu'(x), x the GELU's input.
Tensor gelu_backward(const Tensor& x, const Tensor& dy);
// dy * (1 - y^2), y = tanh(x) the forward output.
Tensor tanh_backward(const Tensor& y, const Tensor& dy);
// Rows of p = softmax(s) [rows, cols]: ds = p * (dp - sum_j dp_j p_j), times `scale`.
Tensor softmax_backward(const Tensor& p, const Tensor& dp, double scale = 1.0);

}  // namespace nsim::kernels::reference
