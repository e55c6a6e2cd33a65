// Reference gradients of LayerNorm (layer_norm.h) given dL/dy, in double, from the input x:
// x_hat = (x - mean) rstd, dx = rstd (g - mean(g) - x_hat mean(g x_hat)) with g = dy gamma,
// dgamma = sum_rows dy x_hat, dbeta = sum_rows dy.
#pragma once

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

struct LayerNormGradients {
    Tensor input;  // [rows, hidden]
    Tensor gamma;  // [hidden]
    Tensor beta;   // [hidden]
};

LayerNormGradients layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy, double eps);

}  // namespace nsim::kernels::reference
