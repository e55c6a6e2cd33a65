#include "bert/half_float.h"

#include <cstring>

namespace nsim::kernels {
namespace {

uint32_t bits_of(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

float float_of(uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

}  // namespace

float f16_bits_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));  // inf / nan
    if (exponent != 0) return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
    if (mantissa == 0) return float_of(sign);
    // Subnormal half: normalise into fp32's wider exponent range.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        ++shift;
    }
    mantissa &= 0x3ffu;
    return float_of(sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13));
}

uint16_t float_to_f16_bits(float value) {
    const uint32_t bits = bits_of(value);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // quiet nan
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65536: inf
    const int exponent = static_cast<int>(abs >> 23) - 127;
    if (exponent >= -14) {
        // Normal half: drop 13 mantissa bits with round-to-nearest-even; a carry may bump the exponent.
        uint32_t rebased = abs - (112u << 23);
        rebased += 0xfffu + ((rebased >> 13) & 1u);
        return static_cast<uint16_t>(sign | (rebased >> 13));
    }
    if (exponent < -25) return sign;  // below half the smallest subnormal
    // Subnormal half: shift the full significand into place, rounding to nearest even.
    const uint32_t significand = (abs & 0x7fffffu) | 0x800000u;
    const int shift = -exponent - 14 + 13;  // 14..24
    const uint32_t kept = significand >> shift;
    const uint32_t remainder = significand & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    const uint32_t rounded = kept + ((remainder > halfway || (remainder == halfway && (kept & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | rounded);
}

float bf16_bits_to_float(uint16_t bits) { return float_of(static_cast<uint32_t>(bits) << 16); }

uint16_t float_to_bf16_bits(float value) {
    const uint32_t bits = bits_of(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet nan
    const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace nsim::kernels
