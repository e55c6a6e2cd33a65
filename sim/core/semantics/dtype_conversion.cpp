#include "core/semantics/dtype_conversion.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace nsim::sim::core::dtype {
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

// A binary floating-point format narrower than fp32, described by its fields and its special values.
struct Format {
    unsigned total_bits;
    unsigned mantissa_bits;
    int bias;
    bool has_infinity;      // IEEE-style: all-ones exponent is inf (mantissa 0) or NaN
    uint32_t largest;       // encoding (sign clear) of the largest finite value
    uint32_t nan;           // encoding (sign clear) written for NaN
    bool saturate;          // overflow to +-largest instead of +-inf
    bool keeps_nan_payload; // bf16 is fp32 truncated, so it can keep a NaN's top payload bits
    uint32_t infinity() const { return (largest | ((1u << mantissa_bits) - 1)) + 1; }
};

constexpr Format kBf16{16, 7, 127, true, 0x7F7F, 0x7FC0, false, true};
constexpr Format kFp16{16, 10, 15, true, 0x7BFF, 0x7E00, false, false};
constexpr Format kE4m3{8, 3, 7, false, 0x7E, 0x7F, true, false};
constexpr Format kE5m2{8, 2, 15, true, 0x7B, 0x7E, true, false};

// Rounds fp32 to `f` by integer arithmetic on the fp32 encoding: adding half an output ulp minus one,
// plus the kept lsb, then truncating, is RNE; adding instead random bits below the output ulp, then
// truncating, is stochastic rounding (`random` non-null). A carry out of the mantissa correctly bumps
// the exponent.
uint32_t encode_format(const Format& f, float value, const uint32_t* random = nullptr) {
    const uint32_t u = bits_of(value);
    const uint32_t sign = (u >> 31) << (f.total_bits - 1);
    const uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) {
        if (f.keeps_nan_payload) return sign | f.nan | (a >> 16);
        return sign | f.nan;
    }
    if (a == 0x7F800000u) return sign | (f.has_infinity ? f.infinity() : f.largest);

    const unsigned shift = 23 - f.mantissa_bits;
    const int exponent = int(a >> 23) == 0 ? 1 : int(a >> 23);  // fp32 subnormals scale like exponent 1
    const int target_exponent = exponent - 127 + f.bias;
    uint32_t rounded;
    if (target_exponent >= 1) {
        const uint32_t increment = random ? (*random & ((1u << shift) - 1)) : ((1u << (shift - 1)) - 1) + ((a >> shift) & 1);
        rounded = (a + increment) >> shift;
        rounded -= uint32_t(127 - f.bias) << f.mantissa_bits;
    } else {
        // Subnormal in the target: shift the full significand further right by the exponent deficit.
        const uint32_t significand = (a >> 23) == 0 ? a : ((a & 0x7FFFFFu) | 0x800000u);
        const unsigned total = shift + unsigned(1 - target_exponent);
        // RNE: below half the smallest subnormal is zero. SR: the random word covers up to 31 dropped
        // bits; beyond them the chance of rounding up (< 2^-8) is dropped.
        if (total >= (random ? 32u : 26u)) return sign;
        const uint32_t increment =
            random ? (*random & ((1u << total) - 1)) : ((1u << (total - 1)) - 1) + ((significand >> total) & 1);
        rounded = (significand + increment) >> total;
    }
    if (rounded > f.largest) rounded = f.saturate ? f.largest : f.infinity();
    return sign | rounded;
}

float decode_format(const Format& f, uint32_t bits) {
    const uint32_t sign = (bits >> (f.total_bits - 1)) & 1;
    const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
    const uint32_t exponent_mask = (1u << (f.total_bits - 1 - f.mantissa_bits)) - 1;
    const uint32_t exponent = (bits >> f.mantissa_bits) & exponent_mask;
    const uint32_t magnitude = bits & ((1u << (f.total_bits - 1)) - 1);
    float value;
    if (f.has_infinity && exponent == exponent_mask)
        value = mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
    else if (!f.has_infinity && magnitude > f.largest)
        value = std::numeric_limits<float>::quiet_NaN();
    else if (exponent == 0)
        value = std::ldexp(float(mantissa), 1 - f.bias - int(f.mantissa_bits));
    else
        value = float_of(((exponent - f.bias + 127) << 23) | (mantissa << (23 - f.mantissa_bits)));
    return sign ? -value : value;
}

using Fp8Table = std::array<float, 256>;

Fp8Table build_table(const Format& format) {
    Fp8Table t{};
    for (uint32_t b = 0; b < 256; ++b) t[b] = decode_format(format, b);
    return t;
}

const Fp8Table& e4m3_table() {
    static const Fp8Table table = build_table(kE4m3);
    return table;
}

const Fp8Table& e5m2_table() {
    static const Fp8Table table = build_table(kE5m2);
    return table;
}

template <class Int>
Int saturating_round(float value) {
    if (std::isnan(value)) return 0;
    const double r = std::rint(double(value));  // default rounding mode: to nearest, ties to even
    if (r <= double(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
    if (r >= double(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
    return Int(r);
}

template <class Raw>
Raw load(const uint8_t* p) {
    Raw r;
    std::memcpy(&r, p, sizeof r);
    return r;
}

template <class Raw>
void store(uint8_t* p, Raw r) {
    std::memcpy(p, &r, sizeof r);
}

// encode_format(kBf16, ...) without its branches, so that bulk conversions vectorise (bf16 is most
// of what a functional run writes). bf16 has fp32's exponent: every non-NaN value, subnormals and
// infinities included, rounds by the same integer add and truncation, and the add never carries into
// the sign; overflow lands on the infinity encoding, which is what bf16 rounds to. NaN keeps its sign
// and top payload bits, quietened.
inline uint16_t bf16_nearest_even(uint32_t u) {
    const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (u >> 16) | 0x40u;
    return uint16_t((u & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan : rounded);
}

[[noreturn]] void no_type() { throw std::invalid_argument("element conversion of an operand without a dtype"); }

}  // namespace

float bf16_to_float(uint16_t bits) { return float_of(uint32_t(bits) << 16); }
uint16_t float_to_bf16(float value) { return bf16_nearest_even(bits_of(value)); }
float fp16_to_float(uint16_t bits) { return decode_format(kFp16, bits); }
uint16_t float_to_fp16(float value) { return uint16_t(encode_format(kFp16, value)); }
float fp8e4m3_to_float(uint8_t bits) { return e4m3_table()[bits]; }
uint8_t float_to_fp8e4m3(float value) { return uint8_t(encode_format(kE4m3, value)); }
float fp8e5m2_to_float(uint8_t bits) { return e5m2_table()[bits]; }
uint8_t float_to_fp8e5m2(float value) { return uint8_t(encode_format(kE5m2, value)); }
int8_t float_to_int8(float value) { return saturating_round<int8_t>(value); }
uint8_t float_to_uint8(float value) { return saturating_round<uint8_t>(value); }
int32_t float_to_int32(float value) { return saturating_round<int32_t>(value); }

void encode_integer(isa::DType type, int64_t value, uint8_t* destination) {
    if (type == isa::DType::Int32) {
        const int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
        store(destination, int32_t(value < lo ? lo : value > hi ? hi : value));
        return;
    }
    const float f = float(value);
    encode(type, &f, destination, 1);
}

void decode(isa::DType type, const uint8_t* s, float* d, size_t count) {
    using isa::DType;
    switch (type) {
        case DType::Fp32: std::memcpy(d, s, count * sizeof(float)); return;
        case DType::Bf16:  // not through bf16_to_float: an exported function is not inlined under -fPIC
            for (size_t i = 0; i < count; ++i) d[i] = float_of(uint32_t(load<uint16_t>(s + 2 * i)) << 16);
            return;
        case DType::Fp16:
            for (size_t i = 0; i < count; ++i) d[i] = fp16_to_float(load<uint16_t>(s + 2 * i));
            return;
        case DType::Fp8E4m3: {
            const auto& t = e4m3_table();
            for (size_t i = 0; i < count; ++i) d[i] = t[s[i]];
            return;
        }
        case DType::Fp8E5m2: {
            const auto& t = e5m2_table();
            for (size_t i = 0; i < count; ++i) d[i] = t[s[i]];
            return;
        }
        case DType::Int8:
            for (size_t i = 0; i < count; ++i) d[i] = float(int8_t(s[i]));
            return;
        case DType::Uint8:
            for (size_t i = 0; i < count; ++i) d[i] = float(s[i]);
            return;
        case DType::Int32:
            for (size_t i = 0; i < count; ++i) d[i] = float(load<int32_t>(s + 4 * i));
            return;
        case DType::None: break;
    }
    no_type();
}

void encode(isa::DType type, const float* s, uint8_t* d, size_t count) {
    using isa::DType;
    switch (type) {
        case DType::Fp32: std::memcpy(d, s, count * sizeof(float)); return;
        case DType::Bf16:
            for (size_t i = 0; i < count; ++i) store(d + 2 * i, bf16_nearest_even(load<uint32_t>(reinterpret_cast<const uint8_t*>(s + i))));
            return;
        case DType::Fp16:
            for (size_t i = 0; i < count; ++i) store(d + 2 * i, float_to_fp16(s[i]));
            return;
        case DType::Fp8E4m3:
            for (size_t i = 0; i < count; ++i) d[i] = float_to_fp8e4m3(s[i]);
            return;
        case DType::Fp8E5m2:
            for (size_t i = 0; i < count; ++i) d[i] = float_to_fp8e5m2(s[i]);
            return;
        case DType::Int8:
            for (size_t i = 0; i < count; ++i) d[i] = uint8_t(float_to_int8(s[i]));
            return;
        case DType::Uint8:
            for (size_t i = 0; i < count; ++i) d[i] = float_to_uint8(s[i]);
            return;
        case DType::Int32:
            for (size_t i = 0; i < count; ++i) store(d + 4 * i, float_to_int32(s[i]));
            return;
        case DType::None: break;
    }
    no_type();
}

bool rounds_stochastically(isa::DType type) {
    using isa::DType;
    return type == DType::Bf16 || type == DType::Fp16 || type == DType::Fp8E4m3 || type == DType::Fp8E5m2;
}

void encode_stochastic(isa::DType type, const float* s, uint8_t* d, size_t count, const uint32_t* random) {
    using isa::DType;
    switch (type) {
        case DType::Bf16:
            for (size_t i = 0; i < count; ++i) store(d + 2 * i, uint16_t(encode_format(kBf16, s[i], random + i)));
            return;
        case DType::Fp16:
            for (size_t i = 0; i < count; ++i) store(d + 2 * i, uint16_t(encode_format(kFp16, s[i], random + i)));
            return;
        case DType::Fp8E4m3:
            for (size_t i = 0; i < count; ++i) d[i] = uint8_t(encode_format(kE4m3, s[i], random + i));
            return;
        case DType::Fp8E5m2:
            for (size_t i = 0; i < count; ++i) d[i] = uint8_t(encode_format(kE5m2, s[i], random + i));
            return;
        default: encode(type, s, d, count);
    }
}

float round_to(isa::DType type, float value) {
    uint8_t bytes[4];
    encode(type, &value, bytes, 1);
    float back;
    decode(type, bytes, &back, 1);
    return back;
}

}  // namespace nsim::sim::core::dtype
