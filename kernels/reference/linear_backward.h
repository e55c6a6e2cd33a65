// Reference gradients of y = x W^T + b (linear.h) given dL/dy: what autograd computes, in double.
#pragma once

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

struct LinearGradients {
    Tensor input;   // dL/dx = dy W            [rows, in]
    Tensor weight;  // dL/dW = dy^T x          [out, in]
    Tensor bias;    // dL/db = sum_rows dy     [out]
};

// x [rows, in], weight [out, in], dy [rows, out].
LinearGradients linear_backward(const Tensor& x, const Tensor& weight, const Tensor& dy);

// a^T b for a [rows, m], b [rows, n]: [m, n], sums over rows in double.
Tensor transposed_product(const Tensor& a, const Tensor& b);

}  // namespace nsim::kernels::reference
