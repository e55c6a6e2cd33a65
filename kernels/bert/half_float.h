// IEEE binary16 and bfloat16 <-> fp32, rounding to nearest even as PyTorch does when it saves a
// half-precision checkpoint. Bit-exact, no dependence on the host's half support.
#pragma once

#include <cstdint>

namespace nsim::kernels {

float f16_bits_to_float(uint16_t bits);
uint16_t float_to_f16_bits(float value);
float bf16_bits_to_float(uint16_t bits);
uint16_t float_to_bf16_bits(float value);

}  // namespace nsim::kernels
