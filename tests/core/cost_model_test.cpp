// The cost of each engine's instructions against the formula written next to the parameters
// (configs/chips/nc-v2.yaml, "Engine cost model"), evaluated here independently from the config numbers.
#include <gtest/gtest.h>

#include <algorithm>

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
    EXPECT_EQ(c.latency_cycles, core.sram_access_latency_cycles);
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

TEST_F(CostModelV2, ControlInstructionsCostTheSequencerCycles) {
    EXPECT_EQ(cost("sp nop", Engine::Sp).cycles, core.control_instruction_cycles);
    EXPECT_EQ(cost("act sem_set sem=$3, value=0", Engine::Act).cycles, core.control_instruction_cycles);
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
