// Reference softmax along the last dimension, max-subtracted as every practical kernel does it.
#pragma once

#include <cstddef>

namespace nsim::kernels::reference {

// In place over `count` contiguous values; sums in double.
void softmax_in_place(float* values, size_t count);

}  // namespace nsim::kernels::reference
