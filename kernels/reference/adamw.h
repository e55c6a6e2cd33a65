// Reference AdamW step (torch.optim.AdamW, decoupled weight decay), in double:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p = p (1 - lr wd) - lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) + eps)
#pragma once

#include <cstdint>

#include "bert/tensor.h"

namespace nsim::kernels::reference {

struct AdamWHyper {
    double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01;
};

// Updates p, m, v in place for step t (1 for the first step) from gradient g.
void adamw_step(Tensor& p, Tensor& m, Tensor& v, const Tensor& g, const AdamWHyper& hyper, uint32_t t);

}  // namespace nsim::kernels::reference
