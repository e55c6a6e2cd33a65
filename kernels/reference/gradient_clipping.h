// Reference gradient-norm clipping (torch.nn.utils.clip_grad_norm_ with the 2-norm), in double: the
// norm over every element of every gradient; when it exceeds max_norm every gradient is multiplied by
// max_norm / (norm + 1e-6).
#pragma once

#include <vector>

#include "bert/tensor.h"

namespace nsim::kernels::reference {

// Returns the norm before clipping.
double clip_grad_norm(const std::vector<Tensor*>& gradients, double max_norm);

}  // namespace nsim::kernels::reference
