#include "reference/linear_backward.h"

#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {

Tensor transposed_product(const Tensor& a, const Tensor& b) {
    if (a.rows() != b.rows())
        throw std::invalid_argument(fmt::format("transposed_product: {} and {} have different rows",
                                                shape_to_string(a.shape), shape_to_string(b.shape)));
    const size_t rows = a.rows(), m = a.cols(), n = b.cols();
    std::vector<double> sum(m * n, 0.0);
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < m; ++i) {
            const double ai = a.at(r, i);
            for (size_t j = 0; j < n; ++j) sum[i * n + j] += ai * b.at(r, j);
        }
    Tensor out({m, n});
    for (size_t i = 0; i < sum.size(); ++i) out.values[i] = float(sum[i]);
    return out;
}

LinearGradients linear_backward(const Tensor& x, const Tensor& weight, const Tensor& dy) {
    const size_t rows = x.rows(), in = x.cols(), out = weight.rows();
    if (weight.cols() != in || dy.rows() != rows || dy.cols() != out)
        throw std::invalid_argument(fmt::format("linear_backward: x {}, weight {}, dy {} do not fit",
                                                shape_to_string(x.shape), shape_to_string(weight.shape),
                                                shape_to_string(dy.shape)));
    LinearGradients g;
    g.input = Tensor({rows, in});
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < in; ++i) {
            double sum = 0;
            for (size_t o = 0; o < out; ++o) sum += double(dy.at(r, o)) * weight.at(o, i);
            g.input.at(r, i) = float(sum);
        }
    g.weight = transposed_product(dy, x);
    g.bias = Tensor({out});
    for (size_t o = 0; o < out; ++o) {
        double sum = 0;
        for (size_t r = 0; r < rows; ++r) sum += dy.at(r, o);
        g.bias.values[o] = float(sum);
    }
    return g;
}

}  // namespace nsim::kernels::reference
