#include "reference/dropout_mask.h"

#include <stdexcept>

namespace nsim::kernels::reference {
namespace {

uint64_t splitmix64_finalizer(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

Tensor dropout_multipliers(const DropoutDraw& draw, uint32_t key, uint32_t first_row, size_t rows, size_t cols) {
    const uint64_t stream = splitmix64_finalizer((uint64_t(draw.seed) << 32) | draw.execution);
    const uint64_t site = splitmix64_finalizer(stream ^ key);
    const uint64_t threshold = uint64_t(double(draw.probability) * 16777216.0);
    const float kept = draw.probability < 1 ? float(1.0 / (1.0 - double(draw.probability))) : 0.0f;
    Tensor m({rows, cols});
    for (size_t r = 0; r < rows; ++r) {
        const uint64_t row = uint32_t(first_row + r);
        for (size_t c = 0; c < cols; ++c) {
            const uint64_t bits = splitmix64_finalizer(site ^ ((row << 32) | uint64_t(c)));
            m.at(r, c) = (bits >> 40) >= threshold ? kept : 0.0f;
        }
    }
    return m;
}

Tensor apply_dropout(const Tensor& x, const Tensor& multipliers) {
    if (multipliers.values.empty()) return x;
    if (multipliers.values.size() != x.values.size()) throw std::invalid_argument("apply_dropout: mask and tensor differ in size");
    Tensor y = x;
    for (size_t i = 0; i < y.values.size(); ++i) y.values[i] *= multipliers.values[i];
    return y;
}

}  // namespace nsim::kernels::reference
