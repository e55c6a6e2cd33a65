#include "reference/gradient_clipping.h"

#include <algorithm>
#include <cmath>

namespace nsim::kernels::reference {

double clip_grad_norm(const std::vector<Tensor*>& gradients, double max_norm) {
    double squares = 0;
    for (const Tensor* g : gradients)
        for (float x : g->values) squares += double(x) * x;
    const double norm = std::sqrt(squares);
    const double coefficient = std::min(1.0, max_norm / (norm + 1e-6));
    for (Tensor* g : gradients)
        for (float& x : g->values) x = float(x * coefficient);
    return norm;
}

}  // namespace nsim::kernels::reference
