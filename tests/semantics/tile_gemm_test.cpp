// The tensor engine's tile multiply through OpenBLAS against the plain ascending-k loop, bit for bit,
// for inputs whose products are exact in fp32 (bf16 and fp16 values); fp32 inputs take the loop.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/semantics/tile_gemm.h"

namespace nsim::sim::core {
namespace {

// A value with at most `bits` significant bits, as bf16 (8) or fp16 (11) values have.
float with_significant_bits(std::mt19937& rng, int bits) {
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    float v = value(rng);
    uint32_t raw;
    std::memcpy(&raw, &v, 4);
    raw &= ~((1u << (24 - bits)) - 1u);
    std::memcpy(&v, &raw, 4);
    return v;
}

struct Shape {
    uint32_t k;
    uint64_t m, n;
};

class TileGemm : public ::testing::TestWithParam<Shape> {};

TEST_P(TileGemm, NarrowInputsGiveTheReferenceBitForBit) {
    const Shape s = GetParam();
    for (const int bits : {8, 11}) {
        std::mt19937 rng(s.k * 7919 + uint32_t(s.m) * 31 + uint32_t(s.n) + bits);
        std::vector<float> st(s.k * s.m), mv(s.k * s.n), got(s.m * s.n), want(s.m * s.n);
        for (float& v : st) v = with_significant_bits(rng, bits);
        for (float& v : mv) v = with_significant_bits(rng, bits);
        tile_gemm(st.data(), mv.data(), s.k, s.m, s.n, got.data(), true);
        tile_gemm_reference(st.data(), mv.data(), s.k, s.m, s.n, want.data());
        ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << "significant bits " << bits;
    }
}

TEST_P(TileGemm, Fp32InputsTakeThePlainLoop) {
    const Shape s = GetParam();
    std::mt19937 rng(s.k + uint32_t(s.m) + uint32_t(s.n));
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    std::vector<float> st(s.k * s.m), mv(s.k * s.n), got(s.m * s.n), want(s.m * s.n);
    for (float& v : st) v = value(rng);
    for (float& v : mv) v = value(rng);
    tile_gemm(st.data(), mv.data(), s.k, s.m, s.n, got.data(), false);
    tile_gemm_reference(st.data(), mv.data(), s.k, s.m, s.n, want.data());
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TileGemm,
                         ::testing::Values(Shape{128, 128, 512}, Shape{128, 64, 128}, Shape{64, 128, 512},
                                           Shape{37, 19, 101}, Shape{1, 128, 512}, Shape{3, 2, 5}));

}  // namespace
}  // namespace nsim::sim::core
