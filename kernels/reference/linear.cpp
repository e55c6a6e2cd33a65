#include "reference/linear.h"

#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

Tensor linear(const Tensor& x, const LinearWeights& w) {
    const size_t rows = x.rows(), in = x.cols(), out = w.weight.rows();
    if (w.weight.cols() != in || w.bias.size() != out)
        throw std::invalid_argument(fmt::format("linear: input {} does not fit weight {} and bias {}",
                                                shape_to_string(x.shape), shape_to_string(w.weight.shape),
                                                shape_to_string(w.bias.shape)));
    Tensor y({rows, out});
    for (size_t r = 0; r < rows; ++r) {
        const float* xr = x.row(r);
        for (size_t o = 0; o < out; ++o) {
            const float* wo = w.weight.row(o);
            double sum = 0;
            for (size_t i = 0; i < in; ++i) sum += static_cast<double>(xr[i]) * wo[i];
            y.at(r, o) = static_cast<float>(sum + w.bias.values[o]);
        }
    }
    return y;
}

Tensor add(const Tensor& a, const Tensor& b) {
    if (a.shape != b.shape)
        throw std::invalid_argument(
            fmt::format("add: shapes {} and {} differ", shape_to_string(a.shape), shape_to_string(b.shape)));
    Tensor out = a;
    for (size_t i = 0; i < out.values.size(); ++i) out.values[i] += b.values[i];
    return out;
}

}  // namespace nsim::kernels::reference
