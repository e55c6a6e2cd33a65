// all_reduce, all_gather, reduce_scatter and send/recv across several cores' memories
// (sim/core/collective_data.h), against references computed here from every rank's source.
// Tolerances: the reductions are exact against the documented fp32 fold in rank order, rounded once to
// the destination's dtype; for add they are also within (n - 1) * 2^-24 * sum|x| of the double sum
// plus half an ulp of the destination dtype (its one rounding). Gathers and transfers only convert:
// exact against round_to of the source value.
#include "core/collective_data.h"
#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace AR = isa::fields::AllReduce;
namespace AG = isa::fields::AllGather;
namespace RS = isa::fields::ReduceScatter;
using isa::ReduceOp;

// Each rank: its own memories and the instruction it issued.
struct Ranks {
    std::vector<Machine> machines;
    std::vector<MemorySpaces> spaces;
    std::vector<isa::Instruction> instructions;

    explicit Ranks(size_t n) : machines(n), instructions(n) {
        for (Machine& m : machines) spaces.push_back(m.spaces());
    }
    std::vector<CollectiveRank> ranks() const {
        std::vector<CollectiveRank> out;
        for (size_t r = 0; r < machines.size(); ++r) out.push_back({&instructions[r], &spaces[r]});
        return out;
    }
};

// What an fp32 fold of the ranks' element i gives, in rank order (collective_data.h).
float fold(ReduceOp op, const std::vector<std::vector<float>>& sources, size_t i) {
    float acc = sources[0][i];
    for (size_t r = 1; r < sources.size(); ++r) {
        const float x = sources[r][i];
        if (op == ReduceOp::Add) acc = acc + x;
        else if (op == ReduceOp::Max) acc = std::max(acc, x);
        else acc = std::min(acc, x);
    }
    return acc;
}

// An add reduction's value against the exact sum: fp32 accumulation error plus the destination's rounding.
void expect_near_exact_sum(DType dst, float got, const std::vector<std::vector<float>>& sources, size_t i) {
    double exact = 0, magnitude = 0;
    for (const auto& s : sources) exact += s[i], magnitude += std::fabs(s[i]);
    const double bound = double(sources.size() - 1) * std::ldexp(magnitude, -24) +
                         0.5 * ulp_of(dst, std::max(std::fabs(exact), std::fabs(double(got))));
    EXPECT_LE(std::fabs(got - exact), bound) << "element " << i;
}

std::vector<std::vector<float>> random_sources(std::mt19937& rng, DType t, size_t ranks, size_t n, float scale) {
    const auto [lo, hi] = range_of(t);
    std::vector<std::vector<float>> sources;
    for (size_t r = 0; r < ranks; ++r) sources.push_back(random_values(rng, t, n, lo * scale, hi * scale));
    return sources;
}

TEST(AllGather, EveryRankGetsEverySourceInRankOrderInEveryDtype) {
    std::mt19937 rng(120);
    const uint32_t rows = 8, cols = 12;
    for (DType t : kAllDtypes)
        for (size_t n : {2u, 3u}) {
            SCOPED_TRACE(dtype_name(t) + " ranks " + std::to_string(n));
            Ranks g(n);
            const auto sources = random_sources(rng, t, n, rows * cols, 1.0f);
            // src: an SBUF tile; dst: n stacked tiles in a DRAM tensor (rows of cols elements, padded to 16).
            const AccessPattern src = sbuf_tile(t, 4, rows, 64, cols);
            const AccessPattern dst = tensor(MemorySpace::Dram, t, 1, uint32_t(n) * rows, 16, 8, {{1, cols}});
            for (size_t r = 0; r < n; ++r) {
                store_rows(g.machines[r], src, sources[r]);
                g.instructions[r] = make(isa::Opcode::AllGather);
                g.instructions[r].set(AG::dst, dst).set(AG::src, src);
                g.instructions[r].set_u32(AG::first_core, 0).set_u32(AG::core_count, uint32_t(n));
            }
            run_collective(g.ranks());
            for (size_t r = 0; r < n; ++r) {
                const std::vector<float> got = load_rows(g.machines[r], dst);
                ASSERT_EQ(got.size(), n * rows * cols);
                for (size_t from = 0; from < n; ++from)
                    for (size_t i = 0; i < rows * cols; ++i)
                        ASSERT_TRUE(same_value(got[from * rows * cols + i], sources[from][i]))
                            << "rank " << r << " block " << from << " element " << i;
                EXPECT_EQ(get(g.machines[r].dram, g.machines[r].tensor_base.at(1) + 8 + cols * isa::size_in_bytes(t), t), 0.0f)
                    << "row padding untouched";
            }
        }
}

TEST(AllGather, ConvertsToTheDestinationTypeAndNeedsRoomForEveryRank) {
    std::mt19937 rng(121);
    Ranks g(2);
    const auto sources = random_sources(rng, DType::Fp32, 2, 4 * 8, 1.0f);
    const AccessPattern src = sbuf_tile(DType::Fp32, 0, 4, 0, 8);
    const AccessPattern dst = psum(DType::Bf16, 0, 8, 0, {{1, 8}});
    for (size_t r = 0; r < 2; ++r) {
        store_rows(g.machines[r], src, sources[r]);
        g.instructions[r] = make(isa::Opcode::AllGather);
        g.instructions[r].set(AG::dst, dst).set(AG::src, src).set_u32(AG::core_count, 2);
    }
    run_collective(g.ranks());
    for (size_t r = 0; r < 2; ++r) {
        const std::vector<float> got = load_rows(g.machines[r], dst);
        for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], dtype::round_to(DType::Bf16, sources[i / 32][i % 32])) << i;
    }
    for (auto& inst : g.instructions) inst.set(AG::dst, psum(DType::Bf16, 0, 4, 0, {{1, 8}}));  // one rank's worth
    try {
        run_collective(g.ranks());
        FAIL() << "no error";
    } catch (const SemanticsError& e) {
        EXPECT_STREQ(e.what(), "all_gather: dst holds 32 elements, the collective produces 64");
    }
}

void check_reduce_scatter(DType t, ReduceOp op, size_t n, std::mt19937& rng) {
    SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(op)) + " ranks " + std::to_string(n));
    const uint32_t rows = 4 * uint32_t(n), cols = 10;  // splits into n parts of 4 rows
    Ranks g(n);
    const auto sources = random_sources(rng, t, n, rows * cols, 0.25f);
    const AccessPattern src = sbuf_tile(t, 16, rows, 128, cols);
    // Each rank's part: 4 x 10 elements, written as 2 rows of 20 into a DRAM tensor.
    const DType out = isa::is_float(t) ? t : DType::Int32;  // integer sums of several ranks outgrow 8 bits
    const AccessPattern dst = tensor(MemorySpace::Dram, out, 2, 2, 20, 0, {{1, 20}});
    for (size_t r = 0; r < n; ++r) {
        store_rows(g.machines[r], src, sources[r]);
        g.instructions[r] = make(isa::Opcode::ReduceScatter);
        g.instructions[r].set(RS::dst, dst).set(RS::src, src).set_enum(RS::op, op);
        g.instructions[r].set_u32(RS::first_core, 0).set_u32(RS::core_count, uint32_t(n));
    }
    run_collective(g.ranks());
    const size_t part = rows * cols / n;
    for (size_t r = 0; r < n; ++r) {
        const std::vector<float> got = load_rows(g.machines[r], dst);
        ASSERT_EQ(got.size(), part);
        for (size_t i = 0; i < part; ++i) {
            const size_t element = r * part + i;
            ASSERT_TRUE(same_value(got[i], dtype::round_to(out, fold(op, sources, element))))
                << "rank " << r << " element " << i << " got " << got[i];
            if (op == ReduceOp::Add) expect_near_exact_sum(out, got[i], sources, element);
        }
    }
}

TEST(ReduceScatter, RankRGetsTheRthPartOfTheReductionInEveryDtype) {
    std::mt19937 rng(122);
    for (DType t : kAllDtypes)
        for (ReduceOp op : {ReduceOp::Add, ReduceOp::Max, ReduceOp::Min}) check_reduce_scatter(t, op, 4, rng);
    check_reduce_scatter(DType::Bf16, ReduceOp::Add, 2, rng);
    check_reduce_scatter(DType::Fp8E5m2, ReduceOp::Max, 3, rng);
}

TEST(ReduceScatter, AReductionThatDoesNotSplitEvenlyOrIsNoneIsAnError) {
    Ranks g(3);
    for (auto& inst : g.instructions) {
        inst = make(isa::Opcode::ReduceScatter);
        inst.set(RS::dst, sbuf_tile(DType::Fp32, 0, 1, 256, 3)).set(RS::src, sbuf_tile(DType::Fp32, 0, 2, 0, 5));
        inst.set_enum(RS::op, ReduceOp::Add).set_u32(RS::core_count, 3);
    }
    try {
        run_collective(g.ranks());
        FAIL() << "no error";
    } catch (const SemanticsError& e) {
        EXPECT_STREQ(e.what(), "reduce_scatter: 10 elements do not split into 3 equal parts");
    }
    for (auto& inst : g.instructions) inst.set(RS::src, sbuf_tile(DType::Fp32, 0, 3, 0, 3)).set_enum(RS::op, ReduceOp::None);
    EXPECT_THROW(run_collective(g.ranks()), SemanticsError);
}

TEST(AllReduce, EveryRankGetsTheWholeReductionInEveryDtype) {
    std::mt19937 rng(123);
    for (DType t : kAllDtypes)
        for (ReduceOp op : {ReduceOp::Add, ReduceOp::Max, ReduceOp::Min}) {
            SCOPED_TRACE(dtype_name(t) + " " + std::string(isa::name_of(op)));
            const size_t n = 3;
            Ranks g(n);
            const auto sources = random_sources(rng, t, n, 6 * 7, 0.25f);
            const AccessPattern src = sbuf_tile(t, 0, 6, 0, 7);
            const DType out = isa::is_float(t) ? t : DType::Int32;
            const AccessPattern dst = sbuf_tile(out, 0, 6, 512, 7);
            for (size_t r = 0; r < n; ++r) {
                store_rows(g.machines[r], src, sources[r]);
                g.instructions[r] = make(isa::Opcode::AllReduce);
                g.instructions[r].set(AR::dst, dst).set(AR::src, src).set_enum(AR::op, op).set_u32(AR::core_count, 3);
            }
            run_collective(g.ranks());
            for (size_t r = 0; r < n; ++r) {
                const std::vector<float> got = load_rows(g.machines[r], dst);
                for (size_t i = 0; i < got.size(); ++i) {
                    ASSERT_TRUE(same_value(got[i], dtype::round_to(out, fold(op, sources, i)))) << "rank " << r << " element " << i;
                    if (op == ReduceOp::Add) expect_near_exact_sum(out, got[i], sources, i);
                }
            }
        }
}

TEST(SendRecv, TheReceiverGetsTheSendersSourceConvertedToItsType) {
    std::mt19937 rng(124);
    for (DType from : kAllDtypes)
        for (DType to : kAllDtypes) {
            SCOPED_TRACE(dtype_name(from) + " -> " + dtype_name(to));
            Ranks g(2);
            const auto [lo, hi] = range_of(from);
            const std::vector<float> x = random_values(rng, from, 5 * 6, lo, hi);
            const AccessPattern src = tensor(MemorySpace::Dram, from, 0, 5, 6, 0, {{1, 6}});
            const AccessPattern dst = sbuf(to, 2, 3, 0, {{1, 10}});
            store_rows(g.machines[0], src, x);
            g.instructions[0] = make(isa::Opcode::Send);
            g.instructions[0].set(isa::fields::Send::src, src).set_u32(isa::fields::Send::peer_core, 1);
            g.instructions[1] = make(isa::Opcode::Recv);
            g.instructions[1].set(isa::fields::Recv::dst, dst).set_u32(isa::fields::Recv::peer_core, 0);
            run_send_recv(g.ranks()[0], g.ranks()[1]);
            const std::vector<float> got = load_rows(g.machines[1], dst);
            for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same_value(got[i], dtype::round_to(to, x[i]))) << i;
            EXPECT_EQ(g.machines[0].sbuf.resident_bytes(), 0u) << "the sender's SBUF untouched";
        }
}

}  // namespace
}  // namespace nsim::sim::core::test
