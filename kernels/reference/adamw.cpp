#include "reference/adamw.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

void adamw_step(Tensor& p, Tensor& m, Tensor& v, const Tensor& g, const AdamWHyper& hyper, uint32_t t) {
    if (m.shape != p.shape || v.shape != p.shape || g.shape != p.shape || t == 0)
        throw std::invalid_argument(fmt::format("adamw_step: p {}, m {}, v {}, g {}, step {}", shape_to_string(p.shape),
                                                shape_to_string(m.shape), shape_to_string(v.shape),
                                                shape_to_string(g.shape), t));
    const double bias1 = 1.0 - std::pow(hyper.beta1, t), bias2 = 1.0 - std::pow(hyper.beta2, t);
    for (size_t i = 0; i < p.size(); ++i) {
        const double grad = g.values[i];
        const double mi = hyper.beta1 * m.values[i] + (1.0 - hyper.beta1) * grad;
        const double vi = hyper.beta2 * v.values[i] + (1.0 - hyper.beta2) * grad * grad;
        const double update = mi / bias1 / (std::sqrt(vi / bias2) + hyper.eps);
        p.values[i] = float(p.values[i] * (1.0 - hyper.lr * hyper.weight_decay) - hyper.lr * update);
        m.values[i] = float(mi);
        v.values[i] = float(vi);
    }
}

}  // namespace nsim::kernels::reference
