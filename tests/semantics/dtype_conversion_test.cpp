// Exhaustive checks of sim/core/semantics/dtype_conversion against a reference written from the
// format definitions (sign, exponent, mantissa, bias) with double arithmetic and a nearest-value
// search: every bit pattern of bf16/fp16/fp8 decodes right and round-trips, every tie between two
// neighbours goes to the even one, random fp32 values round to the nearest representable value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/semantics/dtype_conversion.h"

namespace nsim::sim::core::test {
namespace {

using isa::DType;

struct FormatSpec {
    DType type;
    int bits, exponent_bits, mantissa_bits, bias;
    bool ieee_specials;   // all-ones exponent = inf/NaN; otherwise (e4m3fn) only S.1111.111 is NaN
    bool saturating;      // overflow -> largest finite (OCP fp8 saturating mode)
};

const FormatSpec kBf16{DType::Bf16, 16, 8, 7, 127, true, false};
const FormatSpec kFp16{DType::Fp16, 16, 5, 10, 15, true, false};
const FormatSpec kE4m3{DType::Fp8E4m3, 8, 4, 3, 7, false, true};
const FormatSpec kE5m2{DType::Fp8E5m2, 8, 5, 2, 15, true, true};
const FormatSpec kFormats[] = {kBf16, kFp16, kE4m3, kE5m2};

// The value a bit pattern stands for, straight from the definition.
double reference_value(const FormatSpec& f, uint32_t bits) {
    const uint32_t sign = bits >> (f.bits - 1);
    const uint32_t exponent = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
    const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
    const uint32_t all_ones = (1u << f.exponent_bits) - 1;
    double v;
    if (f.ieee_specials && exponent == all_ones)
        v = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    else if (!f.ieee_specials && exponent == all_ones && mantissa == (1u << f.mantissa_bits) - 1)
        v = std::numeric_limits<double>::quiet_NaN();
    else if (exponent == 0)
        v = std::ldexp(double(mantissa), 1 - f.bias - f.mantissa_bits);
    else
        v = std::ldexp(double(mantissa + (1u << f.mantissa_bits)), int(exponent) - f.bias - f.mantissa_bits);
    return sign ? -v : v;
}

float decode_one(DType t, uint32_t bits) {
    uint8_t b[4];
    std::memcpy(b, &bits, 4);  // little-endian host: low bytes first
    float v;
    dtype::decode(t, b, &v, 1);
    return v;
}

uint32_t encode_one(DType t, float v) {
    uint8_t b[4] = {0, 0, 0, 0};
    dtype::encode(t, &v, b, 1);
    uint32_t bits = 0;
    std::memcpy(&bits, b, isa::size_in_bytes(t));
    return bits;
}

// Positive finite values in encoding order (increasing), index = encoding.
std::vector<double> positive_finite(const FormatSpec& f) {
    std::vector<double> values;
    for (uint32_t b = 0; b < (1u << (f.bits - 1)); ++b) {
        const double v = reference_value(f, b);
        if (!std::isfinite(v)) break;
        values.push_back(v);
    }
    return values;
}

// Nearest representable value by search, ties to the even encoding, overflow per the format's rule.
uint32_t reference_encode(const FormatSpec& f, const std::vector<double>& finite, float x) {
    const uint32_t sign = std::signbit(x) ? 1u << (f.bits - 1) : 0;
    const double a = std::fabs(double(x));
    const uint32_t largest = uint32_t(finite.size() - 1);
    const double top = finite.back(), top_ulp = top - finite[largest - 1];
    if (std::isinf(a)) return sign | (f.ieee_specials ? largest + 1 : largest);
    if (a >= top + top_ulp / 2 && !f.saturating) return sign | (largest + 1);  // the tie goes to inf: top is odd
    if (a >= top) return sign | largest;
    const auto it = std::upper_bound(finite.begin(), finite.end(), a);
    const uint32_t hi = uint32_t(it - finite.begin()), lo = hi - 1;
    const double below = a - finite[lo], above = finite[hi] - a;
    if (below < above) return sign | lo;
    if (above < below) return sign | hi;
    return sign | ((lo & 1) == 0 ? lo : hi);
}

TEST(DtypeConversion, EveryBitPatternDecodesToItsDefinedValue) {
    for (const FormatSpec& f : kFormats) {
        for (uint32_t b = 0; b < (1u << f.bits); ++b) {
            const double want = reference_value(f, b);
            const float got = decode_one(f.type, b);
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << isa::name_of(f.type) << " bits " << b;
            } else {
                ASSERT_EQ(double(got), want) << isa::name_of(f.type) << " bits " << b;
                ASSERT_EQ(std::signbit(got), std::signbit(want)) << isa::name_of(f.type) << " bits " << b;
            }
        }
    }
}

TEST(DtypeConversion, EveryBitPatternRoundTrips) {
    for (const FormatSpec& f : kFormats) {
        for (uint32_t b = 0; b < (1u << f.bits); ++b) {
            const float v = decode_one(f.type, b);
            if (std::isnan(v)) {
                EXPECT_TRUE(std::isnan(decode_one(f.type, encode_one(f.type, v)))) << isa::name_of(f.type) << " " << b;
                EXPECT_EQ(encode_one(f.type, v) >> (f.bits - 1), b >> (f.bits - 1)) << "NaN keeps its sign";
            } else {
                ASSERT_EQ(encode_one(f.type, v), b) << isa::name_of(f.type) << " bits " << b;
            }
        }
    }
}

TEST(DtypeConversion, TiesBetweenNeighboursRoundToEven) {
    for (const FormatSpec& f : kFormats) {
        const std::vector<double> finite = positive_finite(f);
        for (uint32_t b = 0; b + 1 < finite.size(); ++b) {
            const double mid = (finite[b] + finite[b + 1]) / 2;
            const float x = float(mid);
            ASSERT_EQ(double(x), mid) << "midpoint representable in fp32";
            const uint32_t even = (b & 1) == 0 ? b : b + 1;
            for (float s : {1.0f, -1.0f}) {
                const uint32_t sign = s < 0 ? 1u << (f.bits - 1) : 0;
                ASSERT_EQ(encode_one(f.type, s * x), sign | even) << isa::name_of(f.type) << " tie above " << b;
                ASSERT_EQ(encode_one(f.type, s * std::nextafter(x, 0.0f)), sign | b) << isa::name_of(f.type);
                ASSERT_EQ(encode_one(f.type, s * std::nextafter(x, std::numeric_limits<float>::infinity())), sign | (b + 1)) << isa::name_of(f.type);
            }
        }
    }
}

TEST(DtypeConversion, RandomFp32RoundsToNearestRepresentable) {
    std::mt19937 rng(1234);
    for (const FormatSpec& f : kFormats) {
        const std::vector<double> finite = positive_finite(f);
        // Exponents spread over the format's whole range, plus its subnormals, overflow and underflow.
        const int low = -f.bias - f.mantissa_bits - 3, high = int(std::log2(finite.back())) + 3;
        std::uniform_int_distribution<int> exponent(low, high);
        std::uniform_int_distribution<uint32_t> mantissa(0, (1u << 23) - 1);
        for (int i = 0; i < 200000; ++i) {
            const float x = std::ldexp(1.0f + float(mantissa(rng)) / float(1 << 23), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
            ASSERT_EQ(encode_one(f.type, x), reference_encode(f, finite, x)) << isa::name_of(f.type) << " x=" << x;
        }
    }
}

TEST(DtypeConversion, OverflowInfinityAndNanFollowEachFormat) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    // IEEE-style: overflow to inf at half an ulp above the largest value.
    EXPECT_EQ(dtype::float_to_fp16(65504.0f), 0x7BFF);
    EXPECT_EQ(dtype::float_to_fp16(65519.0f), 0x7BFF);
    EXPECT_EQ(dtype::float_to_fp16(65520.0f), 0x7C00);
    EXPECT_EQ(dtype::float_to_fp16(-1e10f), 0xFC00);
    EXPECT_EQ(dtype::float_to_bf16(std::numeric_limits<float>::max()), 0x7F80);
    EXPECT_EQ(dtype::float_to_bf16(inf), 0x7F80);
    // bf16 keeps a NaN's top payload bits (quiet).
    uint32_t payload = 0x7F8A0000u;
    float signalling;
    std::memcpy(&signalling, &payload, 4);
    EXPECT_EQ(dtype::float_to_bf16(signalling), 0x7FCA);
    EXPECT_TRUE(std::isnan(dtype::fp16_to_float(dtype::float_to_fp16(nan))));
    // OCP e4m3fn, saturating: no infinity, overflow and inf -> +-448, NaN -> S.1111.111.
    EXPECT_EQ(dtype::fp8e4m3_to_float(0x7E), 448.0f);
    EXPECT_EQ(dtype::float_to_fp8e4m3(464.0f), 0x7E);  // tie between 448 and (NaN slot) 480 -> even
    EXPECT_EQ(dtype::float_to_fp8e4m3(1e6f), 0x7E);
    EXPECT_EQ(dtype::float_to_fp8e4m3(-inf), 0xFE);
    EXPECT_EQ(dtype::float_to_fp8e4m3(nan), 0x7F);
    EXPECT_TRUE(std::isnan(dtype::fp8e4m3_to_float(0xFF)));
    EXPECT_EQ(dtype::fp8e4m3_to_float(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
    // OCP e5m2, saturating for finite values, inf stays inf.
    EXPECT_EQ(dtype::fp8e5m2_to_float(0x7B), 57344.0f);
    EXPECT_EQ(dtype::float_to_fp8e5m2(1e9f), 0x7B);
    EXPECT_EQ(dtype::float_to_fp8e5m2(-1e9f), 0xFB);
    EXPECT_EQ(dtype::float_to_fp8e5m2(inf), 0x7C);
    EXPECT_TRUE(std::isnan(dtype::fp8e5m2_to_float(dtype::float_to_fp8e5m2(nan))));
    EXPECT_EQ(dtype::fp8e5m2_to_float(0x01), std::ldexp(1.0f, -16));
    // Underflow: below half the smallest subnormal is zero with its sign; exactly half ties to 0.
    EXPECT_EQ(dtype::float_to_fp8e4m3(std::ldexp(1.0f, -10)), 0x00);
    EXPECT_EQ(dtype::float_to_fp8e4m3(-std::ldexp(1.0f, -10)), 0x80);
    EXPECT_EQ(dtype::float_to_fp8e4m3(std::ldexp(1.5f, -10)), 0x01);
    EXPECT_EQ(dtype::float_to_fp16(std::ldexp(1.0f, -140)), 0x0000);
    // fp32 subnormals into bf16 (exact when the low bits are zero, RNE otherwise).
    EXPECT_EQ(dtype::float_to_bf16(std::ldexp(1.0f, -133)), 0x0001);
    EXPECT_EQ(dtype::float_to_bf16(std::ldexp(1.0f, -134)), 0x0000);  // tie -> even (0)
    EXPECT_EQ(dtype::float_to_bf16(std::ldexp(3.0f, -134)), 0x0002);  // tie -> even (2)
}

TEST(DtypeConversion, IntegersRoundToNearestEvenAndSaturate) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(dtype::float_to_int8(2.5f), 2);
    EXPECT_EQ(dtype::float_to_int8(3.5f), 4);
    EXPECT_EQ(dtype::float_to_int8(-2.5f), -2);
    EXPECT_EQ(dtype::float_to_int8(-0.5f), 0);
    EXPECT_EQ(dtype::float_to_int8(2.4999998f), 2);
    EXPECT_EQ(dtype::float_to_int8(127.4f), 127);
    EXPECT_EQ(dtype::float_to_int8(300.0f), 127);
    EXPECT_EQ(dtype::float_to_int8(-300.0f), -128);
    EXPECT_EQ(dtype::float_to_int8(nan), 0);
    EXPECT_EQ(dtype::float_to_uint8(-1.0f), 0);
    EXPECT_EQ(dtype::float_to_uint8(255.5f), 255);
    EXPECT_EQ(dtype::float_to_uint8(254.5f), 254);
    EXPECT_EQ(dtype::float_to_uint8(nan), 0);
    EXPECT_EQ(dtype::float_to_int32(3e9f), 2147483647);
    EXPECT_EQ(dtype::float_to_int32(-3e9f), -2147483647 - 1);
    EXPECT_EQ(dtype::float_to_int32(2147483648.0f), 2147483647);
    EXPECT_EQ(dtype::float_to_int32(16777217.0f), 16777216);  // the float itself is 2^24
    EXPECT_EQ(dtype::float_to_int32(-1234567.5f), -1234568);
    EXPECT_EQ(dtype::float_to_int32(nan), 0);
    // Every int8 and uint8 value is exact in fp32 and back.
    for (int v = -128; v <= 127; ++v) EXPECT_EQ(dtype::float_to_int8(float(v)), v);
    for (int v = 0; v <= 255; ++v) EXPECT_EQ(dtype::float_to_uint8(float(v)), v);
    // int32 from fp32 of a large value is the nearest fp32 (RNE).
    int32_t big = 16777217;
    uint8_t bytes[4];
    std::memcpy(bytes, &big, 4);
    float decoded;
    dtype::decode(DType::Int32, bytes, &decoded, 1);
    EXPECT_EQ(decoded, 16777216.0f);
    // encode_integer keeps int32 exact and clamps.
    dtype::encode_integer(DType::Int32, 2147483647, bytes);
    std::memcpy(&big, bytes, 4);
    EXPECT_EQ(big, 2147483647);
    dtype::encode_integer(DType::Int32, int64_t(1) << 40, bytes);
    std::memcpy(&big, bytes, 4);
    EXPECT_EQ(big, 2147483647);
    dtype::encode_integer(DType::Int8, -1000, bytes);
    EXPECT_EQ(int8_t(bytes[0]), -128);
}

TEST(DtypeConversion, BulkConversionMatchesOneByOne) {
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 100.0f);
    std::vector<float> values(1000);
    for (float& v : values) v = dist(rng);
    for (DType t : {DType::Fp32, DType::Bf16, DType::Fp16, DType::Fp8E4m3, DType::Fp8E5m2, DType::Int8, DType::Int32,
                    DType::Uint8}) {
        const uint32_t size = isa::size_in_bytes(t);
        std::vector<uint8_t> bytes(values.size() * size);
        dtype::encode(t, values.data(), bytes.data(), values.size());
        std::vector<float> back(values.size());
        dtype::decode(t, bytes.data(), back.data(), values.size());
        for (size_t i = 0; i < values.size(); ++i) {
            ASSERT_EQ(encode_one(t, values[i]), [&] {
                uint32_t b = 0;
                std::memcpy(&b, &bytes[i * size], size);
                return b;
            }()) << isa::name_of(t);
            ASSERT_EQ(back[i], dtype::round_to(t, values[i])) << isa::name_of(t);
        }
    }
}

}  // namespace
}  // namespace nsim::sim::core::test
