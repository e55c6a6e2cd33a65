// The tensor engine's tile multiply through OpenBLAS against the plain ascending-k loop, bit for bit,
// for inputs whose products are exact in fp32 (bf16 and fp16 values); fp32 inputs take the loop.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
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

// Narrow values whose products overflow fp32 or fall below its normal range are not exact: there a
// fused multiply-add would round once where the PE array rounds twice, so tile_gemm must still give
// the reference's sums (it checks the products' range before fusing).
TEST_P(TileGemm, NarrowInputsWithInexactProductsGiveTheReferenceBitForBit) {
    const Shape s = GetParam();
    for (const int exponent : {70, -70}) {
        std::mt19937 rng(s.k * 5 + uint32_t(s.m) * 3 + uint32_t(s.n) + uint32_t(exponent + 100));
        std::vector<float> st(s.k * s.m), mv(s.k * s.n), got(s.m * s.n), want(s.m * s.n);
        for (float& v : st) v = std::ldexp(with_significant_bits(rng, 8), exponent);
        for (float& v : mv) v = std::ldexp(with_significant_bits(rng, 8), exponent);
        tile_gemm(st.data(), mv.data(), s.k, s.m, s.n, got.data(), true);
        tile_gemm_reference(st.data(), mv.data(), s.k, s.m, s.n, want.data());
        ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << "exponent " << exponent;
    }
}

// The loop that runs when the BLAS does not (fp32 inputs, small tiles, hosts whose BLAS sums in another
// order): blocked and vectorised, yet the same sums as the one-at-a-time reference, bit for bit, for
// products that round too, and for zeros of either sign, subnormals and infinities.
TEST_P(TileGemm, InOrderLoopGivesTheReferenceBitForBit) {
    const Shape s = GetParam();
    std::mt19937 rng(s.k * 13 + uint32_t(s.m) * 17 + uint32_t(s.n));
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    const float specials[] = {0.0f, -0.0f, 1e-40f, -3e-39f, 1e30f, -1e30f, std::numeric_limits<float>::infinity()};
    std::uniform_int_distribution<int> pick(0, 40);
    const auto draw = [&] {
        const int i = pick(rng);
        return i < int(std::size(specials)) ? specials[i] : value(rng);
    };
    std::vector<float> st(s.k * s.m), mv(s.k * s.n), got(s.m * s.n), want(s.m * s.n);
    for (float& v : st) v = draw();
    for (float& v : mv) v = draw();
    tile_gemm_in_order(st.data(), mv.data(), s.k, s.m, s.n, got.data());
    tile_gemm_reference(st.data(), mv.data(), s.k, s.m, s.n, want.data());
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TileGemm,
                         ::testing::Values(Shape{128, 128, 512}, Shape{128, 64, 128}, Shape{64, 128, 512},
                                           Shape{37, 19, 101}, Shape{1, 128, 512}, Shape{3, 2, 5},
                                           Shape{130, 7, 33}, Shape{6, 1, 1}));

// The simulator multiplies on its own thread, and the BLAS starts no thread of its own: Debian's
// OpenBLAS starts a worker per core when it is loaded, which spins for about 0.1 s of CPU, unless it
// is loaded with one thread, as tile_gemm loads it. A test process has one thread.
TEST(TileGemmHost, TheBlasStartsNoThreadOfItsOwn) {
    std::vector<float> st(128 * 128, 0.5f), mv(128 * 128, 2.0f), out(128 * 128);
    tile_gemm(st.data(), mv.data(), 128, 128, 128, out.data(), true);
    EXPECT_EQ(out[0], 128.0f);
    const auto threads = std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                       std::filesystem::directory_iterator{});
    EXPECT_EQ(threads, 1);
}

}  // namespace
}  // namespace nsim::sim::core
