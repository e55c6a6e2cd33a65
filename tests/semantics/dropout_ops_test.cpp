// set_rng_seed and dropout (dropout_generator.h): each element is dropped with the probability p and
// the kept ones scaled by 1 / (1 - p); the mask is a function of (seed, execution, key, row, element)
// only, so the same instruction on another tensor (a gradient) drops the same elements, and a
// different key, execution or seed draws a different mask.
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace D = isa::fields::Dropout;

constexpr uint32_t kFree = 256;  // 128 x 256 = 32768 elements per draw

isa::Instruction dropout(const AccessPattern& dst, const AccessPattern& src, float p, uint32_t key, uint32_t first_row) {
    isa::Instruction i = make(isa::Opcode::Dropout);
    i.set(D::dst, dst).set(D::src, src).set_f32(D::probability, p);
    i.set_u32(D::key, key).set_u32(D::first_row, first_row);
    return i;
}

// Seeds the generator from (seed, execution) stored as int32 in SBUF, as a program does.
void seed(Machine& m, MemorySpaces& spaces, uint32_t seed, uint32_t execution) {
    const AccessPattern state = sbuf_tile(DType::Int32, 0, 1, 60 * 1024, 2);
    int32_t words[2] = {int32_t(seed), int32_t(execution)};
    m.sbuf.write(address_of(m, state, 0, {0}), reinterpret_cast<const uint8_t*>(words), sizeof(words));
    isa::Instruction i = make(isa::Opcode::SetRngSeed);
    i.set(isa::fields::SetRngSeed::state, state);
    execute(i, spaces);
}

struct Draw {
    std::vector<float> in, out;
};

// Dropout of a [128, kFree] fp32 tile of values in [1, 2) (none zero).
Draw draw(Machine& m, MemorySpaces& spaces, float p, uint32_t key, uint32_t first_row = 0, uint32_t data_seed = 1) {
    std::mt19937 rng(data_seed);
    const AccessPattern src = sbuf_tile(DType::Fp32, 0, kPartitions, 0, kFree);
    const AccessPattern dst = sbuf_tile(DType::Fp32, 0, kPartitions, 4 * kFree, kFree);
    Draw d;
    d.in = random_values(rng, DType::Fp32, size_t(kPartitions) * kFree, 1.0f, 2.0f);
    store_rows(m, src, d.in);
    execute(dropout(dst, src, p, key, first_row), spaces);
    d.out = load_rows(m, dst);
    return d;
}

std::vector<bool> kept(const Draw& d) {
    std::vector<bool> k(d.out.size());
    for (size_t i = 0; i < k.size(); ++i) k[i] = d.out[i] != 0.0f;
    return k;
}

// Elements where two masks differ, as a fraction.
double disagreement(const std::vector<bool>& a, const std::vector<bool>& b) {
    size_t n = 0;
    for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
    return double(n) / double(a.size());
}

TEST(Dropout, DropsTheFractionPAndScalesTheRestByOneOverOneMinusP) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    seed(m, spaces, 1234, 0);
    for (float p : {0.1f, 0.5f, 0.9f}) {
        const Draw d = draw(m, spaces, p, 7);
        size_t dropped = 0;
        const float scale = float(1.0 / (1.0 - double(p)));
        for (size_t i = 0; i < d.out.size(); ++i) {
            if (d.out[i] == 0.0f) ++dropped;
            else ASSERT_EQ(d.out[i], d.in[i] * scale) << "p " << p << " element " << i;
        }
        // 32768 draws: the fraction's standard deviation is at most 0.0028; allow 5 of it.
        EXPECT_NEAR(double(dropped) / double(d.out.size()), p, 0.014) << "p " << p;
    }
}

TEST(Dropout, ProbabilityZeroKeepsEverythingAndOneDropsEverything) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    const Draw none = draw(m, spaces, 0.0f, 3);
    EXPECT_EQ(none.out, none.in);
    const Draw all = draw(m, spaces, 1.0f, 3);
    for (float v : all.out) ASSERT_EQ(v, 0.0f);
}

// The backward's use: the same instruction on other data (a gradient) drops the same elements.
TEST(Dropout, SameKeyAndRowsGiveTheSameMaskOnOtherData) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    seed(m, spaces, 99, 5);
    const Draw forward = draw(m, spaces, 0.1f, 42, 256, 1);
    const Draw backward = draw(m, spaces, 0.1f, 42, 256, 2);
    EXPECT_NE(forward.in, backward.in);
    EXPECT_EQ(kept(forward), kept(backward));
}

// A mask is a function of the row's number (first_row + r), not of where the rows sit: the same rows
// drawn as two halves equal them drawn at once.
TEST(Dropout, RowsAreNumberedFromFirstRow) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    seed(m, spaces, 5, 0);
    const Draw whole = draw(m, spaces, 0.3f, 8, 1000);
    for (uint32_t half = 0; half < 2; ++half) {
        const uint32_t rows = kPartitions / 2, first = half * rows;
        const AccessPattern part_src = sbuf_tile(DType::Fp32, 0, rows, 0, kFree);
        const AccessPattern part_dst = sbuf_tile(DType::Fp32, 0, rows, 4 * kFree, kFree);
        store_rows(m, part_src, std::vector<float>(whole.in.begin() + first * kFree, whole.in.begin() + (first + rows) * kFree));
        execute(dropout(part_dst, part_src, 0.3f, 8, 1000 + first), spaces);
        const std::vector<float> got = load_rows(m, part_dst);
        EXPECT_TRUE(std::equal(got.begin(), got.end(), whole.out.begin() + first * kFree)) << "half " << half;
    }
}

TEST(Dropout, DifferentKeyExecutionOrSeedDrawsADifferentMask) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    seed(m, spaces, 1234, 0);
    const std::vector<bool> base = kept(draw(m, spaces, 0.5f, 7));
    // Independent masks at p = 0.5 disagree on half the elements.
    EXPECT_NEAR(disagreement(base, kept(draw(m, spaces, 0.5f, 8))), 0.5, 0.02) << "another key";
    EXPECT_NEAR(disagreement(base, kept(draw(m, spaces, 0.5f, 7, 1))), 0.5, 0.02) << "rows numbered from 1";
    seed(m, spaces, 1234, 1);
    EXPECT_NEAR(disagreement(base, kept(draw(m, spaces, 0.5f, 7))), 0.5, 0.02) << "the next execution";
    seed(m, spaces, 1235, 0);
    EXPECT_NEAR(disagreement(base, kept(draw(m, spaces, 0.5f, 7))), 0.5, 0.02) << "another seed";
    seed(m, spaces, 1234, 0);
    EXPECT_EQ(base, kept(draw(m, spaces, 0.5f, 7))) << "the same seed and execution again";
}

// Two machines (two runs) from the same seed give the same result, bit for bit, in a narrow dtype too.
TEST(Dropout, ReproducibleFromTheSeed) {
    std::vector<float> runs[2];
    for (std::vector<float>& run : runs) {
        Machine m;
        MemorySpaces spaces = m.spaces();
        seed(m, spaces, 77, 3);
        std::mt19937 rng(4);
        const AccessPattern src = sbuf_tile(DType::Bf16, 0, kPartitions, 0, 64);
        const AccessPattern dst = sbuf_tile(DType::Bf16, 0, kPartitions, 1024, 64);
        store_rows(m, src, random_values(rng, DType::Bf16, size_t(kPartitions) * 64, -4.0f, 4.0f));
        execute(dropout(dst, src, 0.1f, 11, 0), spaces);
        run = load_rows(m, dst);
    }
    EXPECT_EQ(runs[0], runs[1]);
}

TEST(Dropout, ProbabilityOutsideZeroToOneAndABadStateAreErrors) {
    Machine m;
    MemorySpaces spaces = m.spaces();
    const AccessPattern t = sbuf_tile(DType::Fp32, 0, 4, 0, 4);
    EXPECT_THROW(execute(dropout(t, t, 1.5f, 0, 0), spaces), SemanticsError);
    EXPECT_THROW(execute(dropout(t, t, -0.1f, 0, 0), spaces), SemanticsError);
    isa::Instruction i = make(isa::Opcode::SetRngSeed);
    i.set(isa::fields::SetRngSeed::state, sbuf_tile(DType::Fp32, 0, 1, 0, 2));
    EXPECT_THROW(execute(i, spaces), SemanticsError);
    i.set(isa::fields::SetRngSeed::state, sbuf_tile(DType::Int32, 0, 1, 0, 3));
    EXPECT_THROW(execute(i, spaces), SemanticsError);
}

}  // namespace
}  // namespace nsim::sim::core::test
