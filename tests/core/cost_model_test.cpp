// The cost of each engine's instructions against the formula written next to the parameters
// (configs/chips/nc-v2.yaml, "Engine cost model" and "Collectives"), evaluated here independently from
// the config numbers: compute and control instructions through CostModel, collectives, send/recv and
// NeuronLink / PCIe transfers through timing-only runs of the engines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/cost_model.h"
#include "engine_test_support.h"

namespace nsim {
namespace {

using isa::Engine;
using sim::core::CostModel;
using sim::core::InstructionCost;
using sim::core::TensorEngineState;

const config::NeuronCoreSpec& core_of(const std::string& chip) { return test::shipped_configs().chip(chip).core; }

const config::EngineSpec& engine(const config::NeuronCoreSpec& core, const std::string& name) {
    for (const auto& e : core.engines)
        if (e.name == name) return e;
    throw std::out_of_range(name);
}

isa::Instruction one(const std::string& text) {
    const isa::Container c = test::assemble_program(".target v2\n.cores 1\n.core 0\n" + text + "\n");
    return c.streams.at(0).instructions.at(0);
}

// stream(N) = ceil(N * lanes / width)
uint64_t stream(const config::NeuronCoreSpec& core, const config::EngineSpec& e, uint64_t n, uint32_t width = 0) {
    const uint64_t w = width ? width : e.elements_per_cycle;
    return (n * core.sbuf.partitions + w - 1) / w;
}

class CostModelV2 : public testing::Test {
protected:
    const config::NeuronCoreSpec& core = core_of("trainium1");
    CostModel model{core};
    InstructionCost cost(const std::string& text, Engine e) const { return model.compute(one(text), e, nullptr, false); }
};

TEST_F(CostModelV2, OneInputStreamsItsFreeElementsAboveTheMinimumInterval) {
    const auto& dve = engine(core, "vector");
    const InstructionCost c = cost("dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1000]], src=fp32 sbuf[0:128] +8192 [[1,1000]]", Engine::Dve);
    EXPECT_EQ(c.cycles, std::max<uint64_t>(dve.min_instruction_cycles, stream(core, dve, 1000)));
    // Results are visible the engine's result latency later (the core's SBUF/PSUM access latency
    // where the engine has none of its own).
    ASSERT_GT(dve.result_latency_cycles, 0u);
    EXPECT_EQ(c.latency_cycles, dve.result_latency_cycles);
    const auto& pool = engine(core, "gpsimd");
    ASSERT_EQ(pool.result_latency_cycles, 0u);
    EXPECT_EQ(cost("pool tensor_copy dst=fp32 sbuf[0:128] +0 [[1,20]], src=fp32 sbuf[0:128] +4096 [[1,20]]", Engine::Pool).latency_cycles,
              core.sram_access_latency_cycles);
    const InstructionCost small = cost("dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,8]], src=fp32 sbuf[0:128] +64 [[1,8]]", Engine::Dve);
    EXPECT_EQ(small.cycles, dve.min_instruction_cycles);
}

TEST_F(CostModelV2, TwoInputsTakeTwoPassesUnlessOneComesFromPsum) {
    const auto& dve = engine(core, "vector");
    const InstructionCost both_sbuf = cost(
        "dve tensor_tensor dst=fp32 sbuf[0:128] +0 [[1,512]], src0=fp32 sbuf[0:128] +4096 [[1,512]], "
        "src1=fp32 sbuf[0:128] +8192 [[1,512]], op=add", Engine::Dve);
    EXPECT_EQ(both_sbuf.cycles, std::max<uint64_t>(dve.min_instruction_cycles, 2 * stream(core, dve, 512)));
    const InstructionCost one_psum = cost(
        "dve tensor_tensor dst=fp32 sbuf[0:128] +0 [[1,512]], src0=fp32 psum[0:128] +0 [[1,512]], "
        "src1=fp32 sbuf[0:128] +8192 [[1,512]], op=add", Engine::Dve);
    EXPECT_EQ(one_psum.cycles, stream(core, dve, 512));
}

TEST_F(CostModelV2, StridedOnChipOperandsStreamAtHalfRate) {
    const auto& dve = engine(core, "vector");
    // innermost stride 8 fp32 = 32 bytes > sram_full_rate_stride_bytes
    const InstructionCost c = cost("dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,256]], src=fp32 sbuf[0:128] +4096 [[8,256]]", Engine::Dve);
    ASSERT_GT(8u * 4u, core.sram_full_rate_stride_bytes);
    EXPECT_EQ(c.cycles, std::max<uint64_t>(dve.min_instruction_cycles, 2 * stream(core, dve, 256)));
}

TEST_F(CostModelV2, ActivationAddsOneIntervalForItsReduction) {
    const auto& act = engine(core, "scalar");
    const std::string base = "act activation dst=fp32 sbuf[0:128] +0 [[1,700]], src=fp32 psum[0:128] +0 [[1,700]], "
                             "func=exp, scale=1, bias=none, ";
    EXPECT_EQ(cost(base + "reduce_op=none, reduce_dst=none", Engine::Act).cycles,
              std::max<uint64_t>(act.min_instruction_cycles, stream(core, act, 700)));
    EXPECT_EQ(cost(base + "reduce_op=add, reduce_dst=fp32 sbuf[0:128] +8192 [[1,1]]", Engine::Act).cycles,
              std::max<uint64_t>(act.min_instruction_cycles, stream(core, act, 700)) + act.min_instruction_cycles);
}

TEST_F(CostModelV2, GpsimdPaysItsStartupOnEveryInstruction) {
    const auto& pool = engine(core, "gpsimd");
    ASSERT_GT(pool.instruction_overhead_cycles, 0u);
    EXPECT_EQ(cost("pool iota dst=int32 sbuf[0:128] +0 [[1,300]], base=0, partition_step=1, free_step=1", Engine::Pool).cycles,
              pool.instruction_overhead_cycles + stream(core, pool, 300));
    EXPECT_EQ(cost("pool tensor_copy dst=fp32 sbuf[0:128] +0 [[1,20]], src=fp32 sbuf[0:128] +4096 [[1,20]]", Engine::Pool).cycles,
              pool.instruction_overhead_cycles + pool.min_instruction_cycles);
}

TEST_F(CostModelV2, BnAggrScalesWithItsStatistics) {
    const auto& dve = engine(core, "vector");
    const InstructionCost c = cost("dve bn_aggr dst=fp32 sbuf[0:128] +0 [[1,2]], src=fp32 sbuf[0:128] +64 [[1,600]]", Engine::Dve);
    EXPECT_EQ(c.cycles, std::max<uint64_t>(dve.min_instruction_cycles, core.bn_aggr_cycles_per_3_elements * 600 / 3));
}

// O + max(MIN_II, k * stream(N)): the streaming engines' formula with k passes over the input.
uint64_t streaming(const config::NeuronCoreSpec& core, const config::EngineSpec& e, uint64_t n, uint32_t passes = 1,
                   uint32_t width = 0) {
    return e.instruction_overhead_cycles + std::max<uint64_t>(e.min_instruction_cycles, passes * stream(core, e, n, width));
}

TEST_F(CostModelV2, BnStatsAndTensorReduceStreamTheirWholeSourceOnce) {
    const auto& dve = engine(core, "vector");
    const auto& pool = engine(core, "gpsimd");
    const InstructionCost stats = cost("dve bn_stats dst=fp32 sbuf[0:128] +0 [[1,6]], src=fp32 sbuf[0:128] +64 [[1,768]]", Engine::Dve);
    EXPECT_EQ(stats.cycles, streaming(core, dve, 768));
    EXPECT_EQ(stats.latency_cycles, dve.result_latency_cycles);
    // N counts every free element of the source, over all of its dimensions (4 x 1000).
    const std::string reduce = "tensor_reduce dst=fp32 sbuf[0:128] +0 [[1,1]], src=fp32 sbuf[0:128] +64 [[1024,4],[1,1000]], op=max";
    EXPECT_EQ(cost("dve " + reduce, Engine::Dve).cycles, streaming(core, dve, 4000));
    EXPECT_EQ(cost("pool " + reduce, Engine::Pool).cycles, streaming(core, pool, 4000));
    EXPECT_EQ(cost("pool " + reduce, Engine::Pool).cycles - cost("dve " + reduce, Engine::Dve).cycles,
              pool.instruction_overhead_cycles - dve.instruction_overhead_cycles);
}

TEST_F(CostModelV2, PartitionReduceAndAffineSelectAreGpsimdStreamsWithoutTheMinimumInterval) {
    const auto& pool = engine(core, "gpsimd");
    ASSERT_LT(40u, pool.min_instruction_cycles);
    EXPECT_EQ(cost("pool partition_reduce dst=fp32 sbuf[0:1] +0 [[1,300]], src=fp32 sbuf[0:128] +2048 [[1,300]], op=add",
                   Engine::Pool).cycles,
              pool.instruction_overhead_cycles + stream(core, pool, 300));
    EXPECT_EQ(cost("pool affine_select dst=fp32 sbuf[0:128] +0 [[1,40]], src=fp32 sbuf[0:128] +4096 [[1,40]], cmp=is_ge, "
                   "base=0, partition_step=1, free_step=-1, fill=-10000", Engine::Pool).cycles,
              pool.instruction_overhead_cycles + stream(core, pool, 40));
}

// select reads predicate, on_true and on_false: more inputs than read ports, so two passes wherever they are.
std::string select_text(const std::string& engine_name, const std::string& dtype, const std::string& predicate_space,
                        unsigned n) {
    const std::string tile = " [[1," + std::to_string(n) + "]]";
    return engine_name + " select dst=" + dtype + " sbuf[0:128] +0" + tile + ", predicate=" + dtype + " " + predicate_space +
           "[0:128] +0" + tile + ", on_true=" + dtype + " sbuf[0:128] +8192" + tile + ", on_false=" + dtype +
           " sbuf[0:128] +16384" + tile;
}

TEST_F(CostModelV2, SelectsThreeInputsTakeTwoPassesWhereverTheyAre) {
    const auto& dve = engine(core, "vector");
    const auto& pool = engine(core, "gpsimd");
    EXPECT_EQ(cost(select_text("dve", "fp32", "sbuf", 512), Engine::Dve).cycles, streaming(core, dve, 512, 2));
    EXPECT_EQ(cost(select_text("dve", "fp32", "psum", 512), Engine::Dve).cycles, streaming(core, dve, 512, 2));
    EXPECT_EQ(cost(select_text("pool", "fp32", "psum", 512), Engine::Pool).cycles, streaming(core, pool, 512, 2));
    EXPECT_EQ(cost(select_text("dve", "fp32", "sbuf", 20), Engine::Dve).cycles, streaming(core, dve, 20, 2));  // MIN_II
}

TEST_F(CostModelV2, ControlInstructionsCostTheSequencerCycles) {
    EXPECT_EQ(cost("sp nop", Engine::Sp).cycles, core.control_instruction_cycles);
    EXPECT_EQ(cost("act sem_set sem=$3, value=0", Engine::Act).cycles, core.control_instruction_cycles);
    EXPECT_EQ(cost("act set_rounding mode=1, seed=7", Engine::Act).cycles, core.control_instruction_cycles);
}

// hardware.md 3.2, dropout: max(MIN_II, N) Vector Engine cycles, N the elements per partition;
// set_rng_seed's cost is not stated: a control instruction.
TEST_F(CostModelV2, DropoutIsMaxOfTheMinimumIntervalAndItsElementsPerPartition) {
    const auto& dve = engine(core, "vector");
    ASSERT_EQ(dve.min_instruction_cycles, 64u);  // hardware.md: MIN_II "roughly 64 engine cycles"
    for (const uint64_t n : {8u, 64u, 1000u, 4096u}) {
        const std::string f = "[[1," + std::to_string(n) + "]]";
        const InstructionCost c = cost("dve dropout dst=bf16 sbuf[0:128] +0 " + f + ", src=fp32 sbuf[0:128] +16384 " + f +
                                           ", probability=0.1, key=3, first_row=0",
                                       Engine::Dve);
        EXPECT_EQ(c.cycles, dve.instruction_overhead_cycles + std::max<uint64_t>(64, n)) << n;
    }
    EXPECT_EQ(cost("dve set_rng_seed state=int32 sbuf[0:1] +0 [[1,2]]", Engine::Dve).cycles, core.control_instruction_cycles);
}

// The same in a timing run: the vector engine is busy for the sum of its dropouts' cycles.
TEST(DropoutCostV2, TheVectorEngineIsBusyForEachDropoutsCycles) {
    const config::NeuronCoreSpec& core = core_of("trainium1");
    std::string text = ".target v2\n.cores 1\n.core 0\ndve set_rng_seed state=int32 sbuf[0:1] +60000 [[1,2]]\n";
    double cycles = core.control_instruction_cycles;
    for (const uint64_t n : {16u, 512u, 3000u}) {
        const std::string f = "[[1," + std::to_string(n) + "]]";
        text += "dve dropout dst=fp32 sbuf[0:128] +0 " + f + ", src=fp32 sbuf[0:128] +20000 " + f +
                ", probability=0.1, key=1, first_row=0\n";
        cycles += std::max<double>(64, double(n));
    }
    sim::core::ExecutionOptions timing;
    timing.functional = false;
    test::EngineRun run("trn1.2xlarge", test::assemble_program(text), timing);
    const auto stats = run.run();
    EXPECT_NEAR(run.queue(stats, "core0.dve").busy_s * 1e12, test::cycles_ps(core, "vector", cycles), 4);
}

// A DMA queue has no sequencer clock: its control instructions (set_rounding at the head of every
// queue of a stochastically rounding program) cost nothing, where they used to be a logic error.
TEST_F(CostModelV2, ControlInstructionsOnADmaQueueCostNothing) {
    EXPECT_EQ(cost("dma0 set_rounding mode=1, seed=7", Engine::Dma).cycles, 0u);
    EXPECT_EQ(cost("dma0 nop", Engine::Dma).cycles, 0u);
}

// A mark names a point of the program for the statistics (a training step's phases): placing it
// must not change the timing it measures, on any engine.
TEST_F(CostModelV2, MarksCostNothingOnAnyEngine) {
    for (const auto& [text, engine] : {std::pair{"pe mark label=3", Engine::Pe}, std::pair{"act mark label=3", Engine::Act},
                                       std::pair{"dve mark label=0", Engine::Dve}, std::pair{"dma0 mark label=1", Engine::Dma}}) {
        const auto c = cost(text, engine);
        EXPECT_EQ(c.cycles, 0u) << text;
        EXPECT_EQ(c.latency_cycles, 0u) << text;
    }
}

TEST_F(CostModelV2, MatmulIsTheTensorEngineFormulaAndReusesALoadedStationaryTile) {
    const std::string mm = "pe matmul dst=fp32 psum[0:128] +0 [[1,512]], stationary=bf16 sbuf[0:128] +0 [[1,128]], "
                           "moving=bf16 sbuf[0:128] +1024 [[1,512]], acc=overwrite";
    TensorEngineState pe;
    sim::core::MatmulShape shape{128, 128, 512, isa::DType::Bf16, false, 0};
    const auto first = sim::core::matmul_timing(core, shape);
    const InstructionCost c1 = model.compute(one(mm), Engine::Pe, &pe, false);
    EXPECT_EQ(c1.cycles, first.occupancy());
    EXPECT_EQ(c1.latency_cycles, first.latency - first.stream);
    shape.stationary_reused = true;
    const InstructionCost c2 = model.compute(one(mm), Engine::Pe, &pe, true);
    EXPECT_EQ(c2.cycles, sim::core::matmul_timing(core, shape).occupancy());
    EXPECT_LT(c2.cycles, c1.cycles);  // no LoadStationary the second time
}

TEST_F(CostModelV2, PeTransposeIsTheArrayTransposeAndVectorTransposeStreams) {
    const std::string src = "dst=fp32 psum[0:64] +0 [[1,128]], src=fp32 sbuf[0:128] +0 [[1,64]]";
    EXPECT_EQ(cost("pe transpose " + src, Engine::Pe).cycles, sim::core::pe_transpose_cycles(core, 128, 64, isa::DType::Fp32));
    const auto& dve = engine(core, "vector");
    EXPECT_EQ(cost("dve transpose dst=fp32 sbuf[0:32] +0 [[1,32]], src=fp32 sbuf[0:32] +4096 [[1,32]]", Engine::Dve).cycles,
              std::max<uint64_t>(dve.min_instruction_cycles, stream(core, dve, 32)));
}

TEST(CostModelV3, VectorEngineStreamsTwoByteTypesAtItsWiderRate) {
    const config::NeuronCoreSpec& core = core_of("trainium2");
    const CostModel model{core};
    const auto& dve = engine(core, "vector");
    ASSERT_GT(dve.elements_per_cycle_16bit, dve.elements_per_cycle);
    const auto bf16 = model.compute(one("dve tensor_copy dst=bf16 sbuf[0:128] +0 [[1,4096]], src=bf16 sbuf[0:128] +16384 [[1,4096]]"),
                                    Engine::Dve, nullptr, false);
    EXPECT_EQ(bf16.cycles, std::max<uint64_t>(dve.min_instruction_cycles, stream(core, dve, 4096, dve.elements_per_cycle_16bit)));
    const auto fp32 = model.compute(one("dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,4096]], src=fp32 sbuf[0:128] +16384 [[1,4096]]"),
                                    Engine::Dve, nullptr, false);
    EXPECT_EQ(fp32.cycles, std::max<uint64_t>(dve.min_instruction_cycles, stream(core, dve, 4096)));
}

TEST(CostModelV3, SelectAndBnStatsOnTheWiderVectorEngineAndGpsimdStreams) {
    const config::NeuronCoreSpec& core = core_of("trainium2");
    const CostModel model{core};
    const auto& dve = engine(core, "vector");
    const auto& pool = engine(core, "gpsimd");
    auto cycles = [&](const std::string& text, Engine e) { return model.compute(one(text), e, nullptr, false).cycles; };
    // Every operand 2-byte: the 16-bit width; any 4-byte operand: the 32-bit one.
    EXPECT_EQ(cycles(select_text("dve", "bf16", "sbuf", 2048), Engine::Dve),
              streaming(core, dve, 2048, 2, dve.elements_per_cycle_16bit));
    EXPECT_EQ(cycles(select_text("dve", "fp32", "psum", 2048), Engine::Dve), streaming(core, dve, 2048, 2));
    EXPECT_EQ(cycles("dve bn_stats dst=fp32 sbuf[0:128] +0 [[1,6]], src=fp32 sbuf[0:128] +64 [[1,2048]]", Engine::Dve),
              streaming(core, dve, 2048));
    EXPECT_EQ(cycles("pool partition_reduce dst=fp32 sbuf[0:1] +0 [[1,1000]], src=bf16 sbuf[0:128] +8192 [[1,1000]], op=max",
                     Engine::Pool),
              pool.instruction_overhead_cycles + stream(core, pool, 1000));
    EXPECT_EQ(cycles("pool affine_select dst=bf16 sbuf[0:128] +0 [[1,512]], src=bf16 sbuf[0:128] +4096 [[1,512]], cmp=is_lt, "
                     "base=3, partition_step=-1, free_step=1, fill=0", Engine::Pool),
              pool.instruction_overhead_cycles + stream(core, pool, 512));
}

TEST(CostModelV1, VectorAndScalarEnginesStreamWithNcV1sParametersAndThereIsNoGpsimd) {
    const config::NeuronCoreSpec& core = core_of("inferentia");
    const CostModel model{core};
    const auto& dve = engine(core, "vector");
    const auto& act = engine(core, "scalar");
    EXPECT_FALSE(model.has_engine(Engine::Pool));
    ASSERT_EQ(dve.elements_per_cycle_16bit, 0u);  // no wider 16-bit rate on NC-v1: bf16 streams at the same width
    auto cycles = [&](const std::string& text, Engine e) { return model.compute(one(text), e, nullptr, false).cycles; };
    EXPECT_EQ(cycles("dve bn_stats dst=fp32 sbuf[0:128] +0 [[1,6]], src=bf16 sbuf[0:128] +64 [[1,512]]", Engine::Dve),
              streaming(core, dve, 512));
    EXPECT_EQ(cycles("dve tensor_reduce dst=fp32 sbuf[0:128] +0 [[1,1]], src=bf16 sbuf[0:128] +64 [[1,1500]], op=add", Engine::Dve),
              streaming(core, dve, 1500));
    EXPECT_EQ(cycles(select_text("dve", "bf16", "psum", 640), Engine::Dve), streaming(core, dve, 640, 2));
    EXPECT_EQ(cycles("dve bn_aggr dst=fp32 sbuf[0:128] +0 [[1,2]], src=fp32 sbuf[0:128] +64 [[1,6]]", Engine::Dve),
              dve.instruction_overhead_cycles + dve.min_instruction_cycles);  // 13 * 6 / 3 = 26 cycles of work: MIN_II
    EXPECT_EQ(cycles("act activation dst=fp32 sbuf[0:128] +0 [[1,300]], src=fp32 psum[0:128] +0 [[1,300]], func=gelu, scale=1, "
                     "bias=none, reduce_op=max, reduce_dst=fp32 sbuf[0:128] +4096 [[1,1]]", Engine::Act),
              streaming(core, act, 300) + act.min_instruction_cycles);
    EXPECT_EQ(model.compute(one("act nop"), Engine::Act, nullptr, false).latency_cycles, 0u);
}

// ---- collectives, send/recv and NeuronLink transfers (configs/chips/nc-v2.yaml "Collectives") --------

// The seconds each leg of one core-to-core share takes, from the chip's configured numbers.
struct ShareLegs {
    const config::ChipSpec& chip;
    double engine(double bytes) const { return bytes / chip.core.dma_engine_bytes_per_s; }
    double channel(double bytes) const {
        return bytes / chip.memory.channel_bytes_per_s() + chip.memory.latency_s;
    }
    double link(double bytes) const { return bytes / chip.link.bytes_per_s + chip.link.latency_s; }
    double pcie(double bytes) const { return bytes / chip.pcie.bytes_per_s + chip.pcie.latency_s; }
    double overhead() const { return chip.core.dma_transfer_overhead_s; }
    // One ring step among n ranks of one device, spread evenly over all its memory channels, each rank
    // sending S split over the chip's collective_rings rings, each ring on a DMA engine of its own:
    // each share is read in its sender's channel and written in its receiver's (and in a reducing
    // step the receiver's own share is read there as well), so every channel carries 2nS / channels
    // (3nS / channels when reducing).
    double same_device_step(unsigned n, double share, bool reduces = false) const {
        const double rings = chip.link.collective_rings;
        return overhead() + std::max(engine(share / rings), channel((reduces ? 3.0 : 2.0) * n * share / chip.memory.channels));
    }
};

// Picosecond rounding of each reservation on the way.
constexpr double kRoundingS = 50e-12;

// Every core of the program issues `line` (timing-only runs: the ranks may share their destination).
std::string collective_program(const std::string& header, unsigned cores, const std::string& line) {
    std::string text = header;
    for (unsigned c = 0; c < cores; ++c) text += ".core " + std::to_string(c) + "\n" + line + "\n";
    return text;
}

// One collective issued by both cores of a trn1 device, costed as `reducing` ring steps that add what
// they receive, then `forwarding` ones, each of `share` bytes per rank.
// (One elaborated machine per test: SystemC elaborates once per process.)
void expect_ring_steps_on_one_device(const std::string& line, unsigned reducing, unsigned forwarding, double share) {
    const config::ChipSpec& chip = test::shipped_configs().chip("trainium1");
    const ShareLegs legs{chip};
    const unsigned n = 2, steps = reducing + forwarding;
    const std::string header = ".target v2\n.cores 2\n.tensor D scratch fp32 [256, 1000] device 0x0\n";
    test::EngineRun run("trn1.2xlarge", test::assemble_program(collective_program(header, n, line)));
    const auto stats = run.run();
    const double expected = reducing * legs.same_device_step(n, share, true) + forwarding * legs.same_device_step(n, share);
    EXPECT_NEAR(stats.time_s, expected, steps * kRoundingS * chip.link.collective_rings);
    for (unsigned core = 0; core < n; ++core) {
        const auto& q = run.queue(stats, "core" + std::to_string(core) + ".dma0");
        EXPECT_EQ(q.bytes, uint64_t(steps * share));
        EXPECT_NEAR(q.busy_s, expected, steps * kRoundingS * chip.link.collective_rings);
    }
    EXPECT_EQ(stats.device_memory_bytes, uint64_t((2 * steps + reducing) * n * share));
}

const double kSourceBytes = 128.0 * 1000 * 4;  // src: fp32 [128, 1000] in SBUF
const std::string kSource = "src=fp32 sbuf[0:128] +0 [[1,1000]]";

TEST(CollectiveCostV2, AllReduceIsTwoTimesNMinusOneStepsOfAnNthOfTheSource) {
    expect_ring_steps_on_one_device(
        "dma0 all_reduce dst=fp32 dram:D +0 [[1000,128],[1,1000]], " + kSource + ", op=add, first_core=0, core_count=2",
        1, 1, std::ceil(kSourceBytes / 2));
}

TEST(CollectiveCostV2, AllGatherIsNMinusOneStepsOfTheWholeSource) {
    expect_ring_steps_on_one_device(
        "dma0 all_gather dst=fp32 dram:D +0 [[1000,256],[1,1000]], " + kSource + ", first_core=0, core_count=2", 0, 1,
        kSourceBytes);
}

TEST(CollectiveCostV2, ReduceScatterIsNMinusOneStepsOfAnNthOfTheSource) {
    expect_ring_steps_on_one_device(
        "dma0 reduce_scatter dst=fp32 dram:D +0 [[1000,64],[1,1000]], " + kSource + ", op=max, first_core=0, core_count=2",
        1, 0, std::ceil(kSourceBytes / 2));
}

TEST(CollectiveCostV1, FourCoresOfOneDeviceShareItsTwoMemoryChannels) {
    const config::ChipSpec& chip = test::shipped_configs().chip("inferentia");
    const ShareLegs legs{chip};
    const unsigned n = 4;
    const double bytes = 128.0 * 256 * 4;
    // Cores 0 and 1 stage their shares in channel 0, cores 2 and 3 in channel 1, so each channel
    // carries half of every step's 2nS.
    const std::string text = collective_program(
        ".target v1\n.cores 4\n.tensor D scratch fp32 [512, 256] device 0x0\n", n,
        "dma0 all_gather dst=fp32 dram:D +0 [[256,512],[1,256]], src=fp32 sbuf[0:128] +0 [[1,256]], first_core=0, core_count=4");
    test::EngineRun run("inf1.xlarge", test::assemble_program(text));
    const auto stats = run.run();
    EXPECT_NEAR(stats.time_s, (n - 1) * legs.same_device_step(n, bytes), (n - 1) * n * kRoundingS);
    ASSERT_EQ(chip.memory.channels, 2u);
    for (const auto& channel : run.platform->devices()[0]->memory_channels())
        EXPECT_EQ(channel->timing().bytes_moved(), uint64_t((n - 1) * 2 * n * bytes / 2));
}

// A send of `bytes` from program core 0 to program core `to` on inf2.24xlarge (2 cores per device, its
// devices chained 0 - 1 - 2 - ...), alone on the machine.
sim::core::RunStatistics send_from_core0(unsigned to, unsigned bytes) {
    const unsigned elements = bytes / 4 / 128;
    const std::string tile = "[[1," + std::to_string(elements) + "]]";
    std::string text = ".target v2\n.cores " + std::to_string(to + 1) + "\n.core 0\n";
    text += "dma0 send src=fp32 sbuf[0:128] +0 " + tile + ", peer_core=" + std::to_string(to) + ", channel=3\n";
    text += ".core " + std::to_string(to) + "\ndma1 recv dst=fp32 sbuf[0:128] +0 " + tile + ", peer_core=0, channel=3\n";
    return test::EngineRun("inf2.24xlarge", test::assemble_program(text)).run();
}

struct SendCase {
    ShareLegs legs{test::shipped_configs().chip("inferentia2")};
    unsigned bytes = 4096;  // small: the link's and PCIe's latencies outlast the engine
    double engine = legs.engine(bytes);

    // A send from core 0 to core `to`: overhead, then the longest of its legs (`legs_beyond_the_engine`).
    sim::core::RunStatistics expect_time(unsigned to, double legs_beyond_the_engine) const {
        const auto stats = send_from_core0(to, bytes);
        EXPECT_NEAR(stats.time_s, legs.overhead() + std::max(engine, legs_beyond_the_engine), kRoundingS);
        EXPECT_EQ(stats.device_memory_bytes, 2u * bytes);  // read once, written once
        return stats;
    }
};

TEST(CollectiveCostV2, ASendWithinADeviceCrossesItsMemoryChannel) {
    const SendCase c;
    const auto stats = c.expect_time(1, c.legs.channel(2.0 * c.bytes));  // both on device 0
    EXPECT_EQ(stats.link_bytes, 0u);
    EXPECT_EQ(stats.pcie_bytes, 0u);
}

TEST(CollectiveCostV2, ASendToALinkedDeviceCrossesTheNeuronLink) {
    const SendCase c;
    ASSERT_GT(c.legs.link(c.bytes), c.engine);
    // device 0 -> device 1: neighbours in the chain
    const auto stats = c.expect_time(2, std::max(c.legs.channel(c.bytes), c.legs.link(c.bytes)));
    EXPECT_EQ(stats.link_bytes, c.bytes);
    EXPECT_EQ(stats.pcie_bytes, 0u);
}

TEST(CollectiveCostV2, ASendToADeviceWithoutALinkGoesThroughTheHost) {
    const SendCase c;
    ASSERT_GT(c.legs.pcie(c.bytes), c.engine);
    // device 0 -> device 2: no link between them
    const auto stats = c.expect_time(4, std::max(c.legs.channel(c.bytes), c.legs.pcie(c.bytes)));
    EXPECT_EQ(stats.link_bytes, 0u);
    EXPECT_EQ(stats.pcie_bytes, 2u * c.bytes);  // out of device 0, into device 2
}

TEST(CostModelParameters, EveryShippedGenerationSetsTheCostModelKeys) {
    for (const std::string chip : {"inferentia", "inferentia2", "trainium1", "trainium2"}) {
        const config::NeuronCoreSpec& core = core_of(chip);
        EXPECT_GT(core.sram_access_latency_cycles, 0u) << chip;
        EXPECT_GT(core.sram_full_rate_stride_bytes, 0u) << chip;
        EXPECT_GT(core.control_instruction_cycles, 0u) << chip;
        EXPECT_GT(core.bn_aggr_cycles_per_3_elements, 0u) << chip;
    }
}

}  // namespace
}  // namespace nsim
