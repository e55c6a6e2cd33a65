// tensor_reduce, partition_reduce, bn_stats, bn_aggr and combine() against plain loops.
// Tolerances: tensor_reduce / partition_reduce / combine are exact against the documented fp32
// left-to-right fold (and, for add, within n * 2^-24 * sum|x| of the double sum). bn_stats count is
// exact, mean within 2 fp32 ulps of the double mean plus n * 2^-24 * mean|x|, m2 within
// n * 2^-22 * (m2 + n * mean^2); bn_aggr mean/variance within 1e-5 relative of the double statistics
// of the whole row (inputs of mean ~1, spread ~1: no catastrophic cancellation in the reference).
// A destination narrower than fp32 adds half an ulp of its type (its one rounding) to each bound; records
// stored in a narrow type are compared with the statistics of the records as stored.
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace TRD = isa::fields::TensorReduce;
namespace PRD = isa::fields::PartitionReduce;
namespace BS = isa::fields::BnStats;
namespace BA = isa::fields::BnAggr;
using isa::ReduceOp;

float fold(ReduceOp op, const std::vector<float>& v) {
    float acc = v[0];
    for (size_t i = 1; i < v.size(); ++i) {
        if (op == ReduceOp::Add) acc = acc + v[i];
        else if (op == ReduceOp::Max) acc = std::max(acc, v[i]);
        else acc = std::min(acc, v[i]);
    }
    return acc;
}

TEST(TensorReduce, EveryOpEveryDtypeOverAllFreeDimensions) {
    std::mt19937 rng(60);
    for (DType t : kAllDtypes)
        for (ReduceOp op : {ReduceOp::Add, ReduceOp::Max, ReduceOp::Min}) {
            SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(op)));
            Machine m;
            const uint32_t rows = 32;
            // Two free dimensions: 5 blocks of 12, read with a gap between blocks.
            const AccessPattern src = sbuf(t, 8, rows, 0, {{16, 5}, {1, 12}});
            const auto [lo, hi] = range_of(t);
            const std::vector<float> x = random_values(rng, t, rows * 60, lo / 4, hi / 4);
            for (uint32_t p = 0; p < rows; ++p)
                for (uint32_t a = 0; a < 5; ++a)
                    for (uint32_t b = 0; b < 12; ++b) put(m.sbuf, address_of(m, src, p, {a, b}), t, x[p * 60 + a * 12 + b]);
            const DType out = t == DType::Int8 || t == DType::Uint8 ? DType::Fp32 : t;  // sums outgrow 8 bits
            const AccessPattern dst = sbuf_tile(out, 8, rows, 4096, 1);
            isa::Instruction inst = make(isa::Opcode::TensorReduce);
            inst.set(TRD::dst, dst).set(TRD::src, src).set_enum(TRD::op, op);
            execute(inst, m.spaces());
            const std::vector<float> got = load_rows(m, dst);
            for (uint32_t p = 0; p < rows; ++p) {
                const std::vector<float> row(x.begin() + p * 60, x.begin() + (p + 1) * 60);
                ASSERT_EQ(got[p], dtype::round_to(out, fold(op, row))) << "row " << p;
                if (op == ReduceOp::Add && out == DType::Fp32) {
                    double exact = 0, magnitude = 0;
                    for (float v : row) exact += v, magnitude += std::fabs(v);
                    EXPECT_LE(std::fabs(got[p] - exact), 60 * std::ldexp(magnitude, -24));
                }
            }
        }
}

TEST(TensorReduce, NoneIsNotAReductionAndDstMustBeOnePerPartition) {
    Machine m;
    isa::Instruction inst = make(isa::Opcode::TensorReduce);
    inst.set(TRD::dst, sbuf_tile(DType::Fp32, 0, 4, 64, 1)).set(TRD::src, sbuf_tile(DType::Fp32, 0, 4, 0, 8));
    inst.set_enum(TRD::op, ReduceOp::None);
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
    inst.set_enum(TRD::op, ReduceOp::Add).set(TRD::dst, sbuf_tile(DType::Fp32, 0, 4, 64, 2));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
}

TEST(PartitionReduce, AcrossPartitionsIntoOneRow) {
    std::mt19937 rng(61);
    for (DType t : kAllDtypes)
        for (ReduceOp op : {ReduceOp::Add, ReduceOp::Max, ReduceOp::Min}) {
            SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(op)));
            Machine m;
            const uint32_t rows = 100, cols = 24;
            const auto [lo, hi] = range_of(t);
            const std::vector<float> x = random_values(rng, t, rows * cols, lo / 8, hi / 8);
            store_rows(m, sbuf_tile(t, 20, rows, 0, cols), x);
            const AccessPattern dst = sbuf_tile(DType::Fp32, 3, 1, 1000, cols);
            isa::Instruction inst = make(isa::Opcode::PartitionReduce);
            inst.set(PRD::dst, dst).set(PRD::src, sbuf_tile(t, 20, rows, 0, cols)).set_enum(PRD::op, op);
            execute(inst, m.spaces());
            const std::vector<float> got = load_rows(m, dst);
            for (uint32_t f = 0; f < cols; ++f) {
                std::vector<float> column(rows);
                for (uint32_t p = 0; p < rows; ++p) column[p] = x[p * cols + f];
                ASSERT_EQ(got[f], fold(op, column)) << "column " << f;
            }
        }
}

struct Stats {
    double count, mean, m2;
};
Stats exact_stats(const float* x, size_t n) {
    if (n == 0) return {0, 0, 0};
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += x[i];
    const double mean = sum / double(n);
    double m2 = 0;
    for (size_t i = 0; i < n; ++i) m2 += (x[i] - mean) * (x[i] - mean);
    return {double(n), mean, m2};
}

void check_bn_stats(DType t, uint32_t n, uint32_t groups, uint32_t seed, DType out = DType::Fp32) {
    SCOPED_TRACE(dtype_name(t) + " -> " + dtype_name(out) + " n=" + std::to_string(n) + " groups=" + std::to_string(groups));
    Machine m;
    std::mt19937 rng(seed);
    const uint32_t rows = 64;
    const bool non_negative = t == DType::Uint8 || out == DType::Uint8;
    const std::vector<float> x = random_values(rng, t, rows * n, non_negative ? 0.0f : -1.0f, 3.0f);
    store_rows(m, sbuf_tile(t, 0, rows, 0, n), x);
    const AccessPattern dst = sbuf_tile(out, 0, rows, 32768, 3 * groups);
    isa::Instruction inst = make(isa::Opcode::BnStats);
    inst.set(BS::dst, dst).set(BS::src, sbuf_tile(t, 0, rows, 0, n));
    execute(inst, m.spaces());
    const std::vector<float> got = load_rows(m, dst);
    // Half an ulp of the destination for its one rounding (nothing for fp32, the compute type).
    auto stored = [&](double reference, float value) {
        return out == DType::Fp32 ? 0.0 : 0.5 * ulp_of(out, std::max(std::fabs(reference), std::fabs(double(value))));
    };
    for (uint32_t p = 0; p < rows; ++p)
        for (uint32_t g = 0; g < groups; ++g) {
            // The documented split: chunk g holds [g*n/G, (g+1)*n/G).
            const uint32_t begin = g * n / groups, end = (g + 1) * n / groups;
            const Stats s = exact_stats(&x[p * n + begin], end - begin);
            const float* r = &got[(p * groups + g) * 3];
            ASSERT_EQ(r[0], dtype::round_to(out, float(end - begin)));
            double mean_abs = 0;
            for (uint32_t i = begin; i < end; ++i) mean_abs += std::fabs(x[p * n + i]);
            mean_abs /= std::max(1u, end - begin);
            EXPECT_LE(std::fabs(r[1] - s.mean),
                      2 * ulp_of(DType::Fp32, s.mean) + (end - begin) * std::ldexp(mean_abs, -24) + stored(s.mean, r[1]));
            EXPECT_LE(std::fabs(r[2] - s.m2), (end - begin) * std::ldexp(s.m2 + (end - begin) * s.mean * s.mean, -22) +
                                                  1e-30 + stored(s.m2, r[2]));
        }
}

TEST(BnStats, GroupsOfCountMeanM2) {
    check_bn_stats(DType::Fp32, 256, 2, 70);   // the 6-element record of the examples
    check_bn_stats(DType::Bf16, 512, 1, 71);
    check_bn_stats(DType::Fp16, 7, 3, 72);     // uneven chunks 2, 2, 3
    check_bn_stats(DType::Fp32, 2, 4, 73);     // empty chunks are (0, 0, 0)
    check_bn_stats(DType::Fp8E4m3, 96, 2, 74);
    check_bn_stats(DType::Int8, 33, 2, 75);
}

TEST(BnStats, EverySourceAndDestinationDtype) {
    uint32_t seed = 76;
    for (DType t : kAllDtypes) check_bn_stats(t, 48, 2, seed++);
    // 40 elements in 2 groups keep count, mean and m2 inside every destination type's range.
    for (DType out : kAllDtypes) check_bn_stats(DType::Fp32, 40, 2, seed++, out);
}

TEST(BnStats, RecordMustBeWholeGroups) {
    Machine m;
    isa::Instruction inst = make(isa::Opcode::BnStats);
    inst.set(BS::dst, sbuf_tile(DType::Fp32, 0, 4, 1024, 4)).set(BS::src, sbuf_tile(DType::Fp32, 0, 4, 0, 16));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
}

TEST(BnAggr, MergesGroupsIntoMeanAndPopulationVariance) {
    std::mt19937 rng(80);
    for (uint32_t groups : {1u, 2u, 5u}) {
        SCOPED_TRACE("groups " + std::to_string(groups));
        Machine m;
        const uint32_t rows = 32;
        // Write the groups' statistics directly (uneven counts, one empty group when possible).
        std::vector<float> record(rows * groups * 3);
        std::vector<std::vector<float>> samples(rows);
        for (uint32_t p = 0; p < rows; ++p)
            for (uint32_t g = 0; g < groups; ++g) {
                const uint32_t count = (groups > 2 && g == 1) ? 0 : 10 + 7 * g + p % 5;
                const std::vector<float> x = random_values(rng, DType::Fp32, count, 0.0f, 2.0f + g);
                samples[p].insert(samples[p].end(), x.begin(), x.end());
                const Stats s = exact_stats(x.data(), x.size());
                record[(p * groups + g) * 3 + 0] = float(s.count);
                record[(p * groups + g) * 3 + 1] = float(s.mean);
                record[(p * groups + g) * 3 + 2] = float(s.m2);
            }
        store_rows(m, sbuf_tile(DType::Fp32, 0, rows, 0, 3 * groups), record);
        const AccessPattern dst = sbuf_tile(DType::Fp32, 0, rows, 512, 2);
        isa::Instruction inst = make(isa::Opcode::BnAggr);
        inst.set(BA::dst, dst).set(BA::src, sbuf_tile(DType::Fp32, 0, rows, 0, 3 * groups));
        execute(inst, m.spaces());
        const std::vector<float> got = load_rows(m, dst);
        for (uint32_t p = 0; p < rows; ++p) {
            const Stats s = exact_stats(samples[p].data(), samples[p].size());
            EXPECT_NEAR(got[2 * p], s.mean, 1e-5 * std::fabs(s.mean)) << "row " << p;
            EXPECT_NEAR(got[2 * p + 1], s.m2 / s.count, 1e-5 * (s.m2 / s.count)) << "row " << p;
        }
    }
}

// bn_aggr of (count, mean, m2) records stored in `src_type`, against the statistics of the whole row
// computed in double from the records as stored: count = sum c, mean = sum(c m) / count,
// variance = sum(m2 + c (m - mean)^2) / count (the direct formula, not bn_aggr's pairwise merges).
void check_bn_aggr(DType src_type, DType dst_type, std::mt19937& rng) {
    SCOPED_TRACE(dtype_name(src_type) + " -> " + dtype_name(dst_type));
    Machine m;
    const uint32_t rows = 16, groups = 3;
    std::vector<float> record(rows * groups * 3);
    for (uint32_t p = 0; p < rows; ++p)
        for (uint32_t g = 0; g < groups; ++g) {
            const uint32_t count = 8 + 5 * g + p % 4;
            const std::vector<float> x = random_values(rng, DType::Fp32, count, 0.0f, 2.0f + g);
            const Stats s = exact_stats(x.data(), x.size());
            record[(p * groups + g) * 3 + 0] = float(s.count);
            record[(p * groups + g) * 3 + 1] = float(s.mean);
            record[(p * groups + g) * 3 + 2] = float(s.m2);
        }
    const AccessPattern src = sbuf_tile(src_type, 0, rows, 0, 3 * groups);
    store_rows(m, src, record);
    const std::vector<float> as_stored = load_rows(m, src);
    const AccessPattern dst = sbuf_tile(dst_type, 0, rows, 512, 2);
    isa::Instruction inst = make(isa::Opcode::BnAggr);
    inst.set(BA::dst, dst).set(BA::src, src);
    execute(inst, m.spaces());
    const std::vector<float> got = load_rows(m, dst);
    for (uint32_t p = 0; p < rows; ++p) {
        const float* r = &as_stored[p * groups * 3];
        double count = 0, weighted = 0, largest_mean = 0;
        for (uint32_t g = 0; g < groups; ++g) {
            count += r[3 * g];
            weighted += double(r[3 * g]) * r[3 * g + 1];
            largest_mean = std::max(largest_mean, std::fabs(double(r[3 * g + 1])));
        }
        ASSERT_GT(count, 0.0);
        const double mean = weighted / count;
        double m2 = 0;
        for (uint32_t g = 0; g < groups; ++g) m2 += r[3 * g + 2] + r[3 * g] * (r[3 * g + 1] - mean) * (r[3 * g + 1] - mean);
        const double variance = m2 / count;
        // fp32 merges (relative 1e-5, as above), then one rounding to the destination type.
        const auto rounding = [&](double reference, float value) {
            return dst_type == DType::Fp32 ? 0.0 : 0.5 * ulp_of(dst_type, std::max(std::fabs(reference), std::fabs(double(value))));
        };
        EXPECT_LE(std::fabs(got[2 * p] - mean), 1e-5 * (std::fabs(mean) + largest_mean) + rounding(mean, got[2 * p]))
            << "row " << p;
        EXPECT_LE(std::fabs(got[2 * p + 1] - variance), 1e-5 * variance + 1e-30 + rounding(variance, got[2 * p + 1]))
            << "row " << p;
    }
}

TEST(BnAggr, RecordsAndResultsInEveryDtype) {
    std::mt19937 rng(82);
    for (DType t : kAllDtypes) check_bn_aggr(t, DType::Fp32, rng);
    for (DType t : kAllDtypes) check_bn_aggr(DType::Fp32, t, rng);
}

TEST(BnAggr, AllGroupsEmptyGivesZeros) {
    Machine m;
    isa::Instruction inst = make(isa::Opcode::BnAggr);
    store_rows(m, sbuf_tile(DType::Fp32, 0, 1, 0, 3), {0.0f, 5.0f, 7.0f});
    store_rows(m, sbuf_tile(DType::Fp32, 0, 1, 64, 2), {9.0f, 9.0f});
    inst.set(BA::dst, sbuf_tile(DType::Fp32, 0, 1, 64, 2)).set(BA::src, sbuf_tile(DType::Fp32, 0, 1, 0, 3));
    execute(inst, m.spaces());
    EXPECT_EQ(load_rows(m, sbuf_tile(DType::Fp32, 0, 1, 64, 2)), (std::vector<float>{0.0f, 0.0f}));
    inst.set(BA::src, sbuf_tile(DType::Fp32, 0, 1, 0, 4));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
    inst.set(BA::src, sbuf_tile(DType::Fp32, 0, 1, 0, 3)).set(BA::dst, sbuf_tile(DType::Fp32, 0, 1, 64, 3));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
}

TEST(BnStatsThenBnAggr, LayernormStatisticsOfLongRows) {
    Machine m;
    std::mt19937 rng(81);
    const uint32_t rows = 128, n = 768;  // BERT-base hidden size
    const std::vector<float> x = random_values(rng, DType::Fp32, rows * n, -2.0f, 4.0f);
    store_rows(m, sbuf_tile(DType::Fp32, 0, rows, 0, n), x);
    isa::Instruction stats = make(isa::Opcode::BnStats);
    stats.set(BS::dst, sbuf_tile(DType::Fp32, 0, rows, 8192, 6)).set(BS::src, sbuf_tile(DType::Fp32, 0, rows, 0, n));
    isa::Instruction aggr = make(isa::Opcode::BnAggr);
    aggr.set(BA::dst, sbuf_tile(DType::Fp32, 0, rows, 8256, 2)).set(BA::src, sbuf_tile(DType::Fp32, 0, rows, 8192, 6));
    execute(stats, m.spaces());
    execute(aggr, m.spaces());
    const std::vector<float> got = load_rows(m, sbuf_tile(DType::Fp32, 0, rows, 8256, 2));
    for (uint32_t p = 0; p < rows; ++p) {
        const Stats s = exact_stats(&x[p * n], n);
        EXPECT_NEAR(got[2 * p], s.mean, 1e-5 * std::fabs(s.mean) + 1e-6);
        EXPECT_NEAR(got[2 * p + 1], s.m2 / n, 1e-5 * s.m2 / n);
    }
}

TEST(Combine, ElementwiseReductionForCollectives) {
    Tile a = blank_tile(2, 3), b = blank_tile(2, 3);
    a.values = {1, 5, -2, 0.5f, 7, 3};
    b.values = {2, 4, -3, 0.25f, 7, std::numeric_limits<float>::quiet_NaN()};
    Tile sum = a, high = a, low = a;
    combine(ReduceOp::Add, sum, b);
    combine(ReduceOp::Max, high, b);
    combine(ReduceOp::Min, low, b);
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(sum.values[i], a.values[i] + b.values[i]);
        EXPECT_EQ(high.values[i], std::max(a.values[i], b.values[i]));
        EXPECT_EQ(low.values[i], std::min(a.values[i], b.values[i]));
    }
    EXPECT_TRUE(std::isnan(sum.values[5]) && std::isnan(high.values[5]) && std::isnan(low.values[5]));
    EXPECT_THROW(combine(ReduceOp::None, sum, b), SemanticsError);
    EXPECT_THROW(combine(ReduceOp::Add, sum, blank_tile(1, 3)), SemanticsError);
}

}  // namespace
}  // namespace nsim::sim::core::test
