// Stochastic rounding (rounding_state.h): set_rounding switches a core's narrow writes between
// round-to-nearest-even and stochastic rounding; the references are the two neighbours of a value in
// the destination type, computed here from ulp_of, and the probability of rounding up.
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace SR = isa::fields::SetRounding;
namespace TS = isa::fields::TensorScalar;

constexpr DType kNarrowFloats[] = {DType::Bf16, DType::Fp16, DType::Fp8E4m3, DType::Fp8E5m2};

isa::Instruction set_rounding(uint32_t mode, uint32_t seed) {
    isa::Instruction i = make(isa::Opcode::SetRounding);
    i.set_u32(SR::mode, mode);
    i.set_u32(SR::seed, seed);
    return i;
}

// One fp32 tile [kPartitions, free] of `value` written to `t` by write_tile: the values it holds.
std::vector<float> write_values(MemorySpaces& spaces, Machine& m, DType t, float value, uint32_t free) {
    const AccessPattern ap = sbuf_tile(t, 0, kPartitions, 0, free);
    Tile tile = blank_tile(kPartitions, free);
    for (float& v : tile.values) v = value;
    write_tile(ap, tile, spaces);
    return load_rows(m, ap);
}

TEST(SetRounding, NearestEvenByDefaultAndAfterModeZero) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    for (DType t : kNarrowFloats) {
        const float value = 1.0f + 0.3f * float(ulp_of(t, 1.0));
        for (float v : write_values(spaces, m, t, value, 8)) EXPECT_EQ(v, 1.0f) << dtype_name(t);
        execute(set_rounding(1, 5), spaces);
        execute(set_rounding(0, 5), spaces);
        for (float v : write_values(spaces, m, t, value, 8)) EXPECT_EQ(v, 1.0f) << dtype_name(t);
    }
}

// A value a fraction f of an ulp above its lower neighbour rounds up with probability f, and to one
// of the two neighbours only; exactly representable values stay exact.
TEST(SetRounding, StochasticRoundsUpWithTheFractionOfAnUlp) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    execute(set_rounding(1, 1234), spaces);
    for (DType t : kNarrowFloats) {
        for (float sign : {1.0f, -1.0f}) {
            for (double fraction : {0.1, 0.25, 0.5, 0.8}) {
                const double low = 1.5, ulp = ulp_of(t, low);
                const float value = sign * float(low + fraction * ulp);
                const std::vector<float> got = write_values(spaces, m, t, value, 64);
                size_t up = 0;
                for (float v : got) {
                    ASSERT_TRUE(v == float(sign * low) || v == float(sign * (low + ulp)))
                        << dtype_name(t) << " wrote " << v << " for " << value;
                    up += std::fabs(v) > low;
                }
                // 8192 draws: the standard deviation of the fraction is below 0.0056; allow 5 of it.
                EXPECT_NEAR(double(up) / double(got.size()), fraction, 0.028) << dtype_name(t) << " " << value;
            }
            for (float v : write_values(spaces, m, t, sign * 1.5f, 16)) EXPECT_EQ(v, sign * 1.5f) << dtype_name(t);
        }
    }
}

// Subnormal results round stochastically too: a quarter of the smallest fp16 subnormal becomes it a
// quarter of the time, else zero.
TEST(SetRounding, StochasticRoundingOfSubnormals) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    execute(set_rounding(1, 7), spaces);
    const float smallest = std::ldexp(1.0f, -24);
    const std::vector<float> got = write_values(spaces, m, DType::Fp16, smallest / 4, 64);
    size_t up = 0;
    for (float v : got) {
        ASSERT_TRUE(v == 0.0f || v == smallest) << v;
        up += v == smallest;
    }
    EXPECT_NEAR(double(up) / double(got.size()), 0.25, 0.025);
}

// The same seed gives the same bits from the start; another seed other bits; repeating the current
// setting does not restart the sequence.
TEST(SetRounding, ReproducibleFromTheSeed) {
    auto run = [](std::vector<uint32_t> seeds) {
        Machine m;
        MemorySpaces spaces = m.spaces();
        std::vector<float> all;
        for (uint32_t seed : seeds) {
            execute(set_rounding(1, seed), spaces);
            const std::vector<float> v = write_values(spaces, m, DType::Bf16, 1.0f + 1.0f / 512, 32);
            all.insert(all.end(), v.begin(), v.end());
        }
        return all;
    };
    EXPECT_EQ(run({3, 3}), run({3, 3}));
    EXPECT_NE(run({3}), run({4}));
    const std::vector<float> twice = run({3, 3});
    const std::vector<float> first = run({3});
    EXPECT_TRUE(std::equal(first.begin(), first.end(), twice.begin()));
    EXPECT_FALSE(std::equal(first.begin(), first.end(), twice.begin() + first.size()))
        << "repeating set_rounding restarted the random sequence";
}

// The training.md A2.4 example, one engine instruction at a time: fp16 1024 + 0.5, 2048 times, stays
// 1024 with nearest even (every sum is a tie, to the even 1024) and ends near 2048 with SR (the
// expected value; each element's count of round-ups has a standard deviation of 23 ulps).
TEST(SetRounding, AddingHalfToFp16ThousandTwentyFourTwoThousandTimes) {
    auto run = [](bool stochastic) {
        Machine m;
        MemorySpaces spaces = m.spaces();
        execute(set_rounding(stochastic ? 1 : 0, 0), spaces);
        const AccessPattern x = sbuf_tile(DType::Fp16, 0, kPartitions, 0, 4);
        store_rows(m, x, std::vector<float>(kPartitions * 4, 1024.0f));
        isa::Instruction add = make(isa::Opcode::TensorScalar);
        add.set(TS::dst, x).set(TS::src, x);
        add.set_u32(TS::op0, uint32_t(isa::AluOp::Add)).set_f32(TS::imm0, 0.5f);
        add.set_u32(TS::op1, uint32_t(isa::AluOp::Bypass));
        for (int i = 0; i < 2048; ++i) execute(add, spaces);
        return load_rows(m, x);
    };
    for (float v : run(false)) EXPECT_EQ(v, 1024.0f);
    const std::vector<float> sr = run(true);
    double mean = 0;
    for (float v : sr) {
        EXPECT_GT(v, 1900.0f);
        EXPECT_LT(v, 2200.0f);
        mean += v / double(sr.size());
    }
    EXPECT_NEAR(mean, 2048.0, 8.0);
}

TEST(SetRounding, ModeOtherThanZeroOrOneIsAnError) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    EXPECT_THROW(execute(set_rounding(2, 0), spaces), SemanticsError);
}

}  // namespace
}  // namespace nsim::sim::core::test
