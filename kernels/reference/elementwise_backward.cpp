#include "reference/elementwise_backward.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::kernels::reference {
namespace {

void check_same(const Tensor& a, const Tensor& b, const char* what) {
    if (a.shape != b.shape)
        throw std::invalid_argument(fmt::format("{}: {} and {} differ", what, shape_to_string(a.shape),
                                                shape_to_string(b.shape)));
}

}  // namespace

double gelu_erf_derivative(double x) {
    const double pi = 3.14159265358979323846;
    return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * pi);
}

Tensor gelu_backward(const Tensor& x, const Tensor& dy) {
    check_same(x, dy, "gelu_backward");
    Tensor dx(x.shape);
    for (size_t i = 0; i < x.size(); ++i) dx.values[i] = float(dy.values[i] * gelu_erf_derivative(x.values[i]));
    return dx;
}

Tensor tanh_backward(const Tensor& y, const Tensor& dy) {
    check_same(y, dy, "tanh_backward");
    Tensor dx(y.shape);
    for (size_t i = 0; i < y.size(); ++i)
        dx.values[i] = float(dy.values[i] * (1.0 - double(y.values[i]) * y.values[i]));
    return dx;
}

Tensor softmax_backward(const Tensor& p, const Tensor& dp, double scale) {
    check_same(p, dp, "softmax_backward");
    Tensor ds(p.shape);
    for (size_t r = 0; r < p.rows(); ++r) {
        double dot = 0;
        for (size_t c = 0; c < p.cols(); ++c) dot += double(dp.at(r, c)) * p.at(r, c);
        for (size_t c = 0; c < p.cols(); ++c) ds.at(r, c) = float(scale * p.at(r, c) * (dp.at(r, c) - dot));
    }
    return ds;
}

}  // namespace nsim::kernels::reference
