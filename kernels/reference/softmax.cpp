#include "reference/softmax.h"

#include <cmath>

namespace nsim::kernels::reference {

void softmax_in_place(float* values, size_t count) {
    if (count == 0) return;
    float max = values[0];
    for (size_t i = 1; i < count; ++i) max = values[i] > max ? values[i] : max;
    double sum = 0;
    for (size_t i = 0; i < count; ++i) sum += std::exp(static_cast<double>(values[i]) - max);
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(std::exp(static_cast<double>(values[i]) - max) / sum);
}

}  // namespace nsim::kernels::reference
