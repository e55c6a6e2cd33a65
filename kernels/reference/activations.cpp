#include "reference/activations.h"

#include <cmath>

namespace nsim::kernels::reference {
namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

float gelu_erf(float x) {
    const double v = x;
    return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
}

float gelu_tanh(float x) {
    const double v = x;
    const double sqrt_2_over_pi = std::sqrt(2.0 / kPi);
    return static_cast<float>(0.5 * v * (1.0 + std::tanh(sqrt_2_over_pi * (v + 0.044715 * v * v * v))));
}

float relu(float x) { return x > 0 ? x : 0.0f; }

float activation(HiddenActivation act, float x) {
    switch (act) {
    case HiddenActivation::GeluErf: return gelu_erf(x);
    case HiddenActivation::GeluTanh: return gelu_tanh(x);
    case HiddenActivation::Relu: return relu(x);
    }
    return x;
}

Tensor apply_activation(Tensor x, HiddenActivation act) {
    for (float& v : x.values) v = activation(act, v);
    return x;
}

Tensor apply_tanh(Tensor x) {
    for (float& v : x.values) v = std::tanh(v);
    return x;
}

}  // namespace nsim::kernels::reference
