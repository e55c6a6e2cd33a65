#include "reference/layer_norm_backward.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

LayerNormGradients layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy, double eps) {
    const size_t rows = x.rows(), hidden = x.cols();
    if (gamma.size() != hidden || dy.shape != x.shape)
        throw std::invalid_argument(fmt::format("layer_norm_backward: x {}, gamma {}, dy {} do not fit",
                                                shape_to_string(x.shape), shape_to_string(gamma.shape),
                                                shape_to_string(dy.shape)));
    LayerNormGradients g{Tensor(x.shape), Tensor({hidden}), Tensor({hidden})};
    std::vector<double> dgamma(hidden, 0.0), dbeta(hidden, 0.0), x_hat(hidden), grad(hidden);
    for (size_t r = 0; r < rows; ++r) {
        double mean = 0, variance = 0;
        for (size_t i = 0; i < hidden; ++i) mean += x.at(r, i);
        mean /= double(hidden);
        for (size_t i = 0; i < hidden; ++i) variance += (x.at(r, i) - mean) * (x.at(r, i) - mean);
        variance /= double(hidden);
        const double rstd = 1.0 / std::sqrt(variance + eps);
        double mean_grad = 0, mean_grad_x_hat = 0;
        for (size_t i = 0; i < hidden; ++i) {
            x_hat[i] = (x.at(r, i) - mean) * rstd;
            grad[i] = double(dy.at(r, i)) * gamma.values[i];
            mean_grad += grad[i];
            mean_grad_x_hat += grad[i] * x_hat[i];
            dgamma[i] += double(dy.at(r, i)) * x_hat[i];
            dbeta[i] += dy.at(r, i);
        }
        mean_grad /= double(hidden);
        mean_grad_x_hat /= double(hidden);
        for (size_t i = 0; i < hidden; ++i)
            g.input.at(r, i) = float(rstd * (grad[i] - mean_grad - x_hat[i] * mean_grad_x_hat));
    }
    for (size_t i = 0; i < hidden; ++i) {
        g.gamma.values[i] = float(dgamma[i]);
        g.beta.values[i] = float(dbeta[i]);
    }
    return g;
}

}  // namespace nsim::kernels::reference
