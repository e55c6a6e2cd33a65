#include "reference/layer_norm.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

Tensor layer_norm(const Tensor& x, const LayerNormWeights& w, double eps) {
    const size_t rows = x.rows(), hidden = x.cols();
    if (w.gamma.size() != hidden || w.beta.size() != hidden)
        throw std::invalid_argument(fmt::format("layer_norm: input {} does not fit gamma {} / beta {}",
                                                shape_to_string(x.shape), shape_to_string(w.gamma.shape),
                                                shape_to_string(w.beta.shape)));
    Tensor y(x.shape);
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x.row(r);
        double mean = 0;
        for (size_t i = 0; i < hidden; ++i) mean += xr[i];
        mean /= static_cast<double>(hidden);
        double variance = 0;
        for (size_t i = 0; i < hidden; ++i) variance += (xr[i] - mean) * (xr[i] - mean);
        variance /= static_cast<double>(hidden);
        const double inv_std = 1.0 / std::sqrt(variance + eps);
        for (size_t i = 0; i < hidden; ++i)
            y.at(r, i) = static_cast<float>((xr[i] - mean) * inv_std * w.gamma.values[i] + w.beta.values[i]);
    }
    return y;
}

}  // namespace nsim::kernels::reference
