// Stochastic rounding switched on by a program (CoreBuilder / ProgramBuilder::set_stochastic_rounding)
// and run on the simulated engines: training.md A2.4's example, fp16 1024 + 0.5 added 2048 times,
// stays 1024 with round-to-nearest-even and ends near 2048 (its expected value) with SR. Two cores of
// one program run the same instructions, each with its own rounding state and seed: equal seeds give
// equal results (reproducible), different seeds different ones. (One simulation per test process,
// hence two cores rather than two runs.)
#include <gtest/gtest.h>

#include <optional>

#include "device/kernel_context.h"
#include "device_run.h"

namespace nsim::kernels {
namespace {

constexpr uint32_t kColumns = 4;

// Per core: nothing (nearest even) or the seed of its stochastic rounding. Returns x of each core.
std::vector<std::vector<float>> add_half_2048_times(const std::string& instance,
                                                    const std::vector<std::optional<uint32_t>>& seeds) {
    const config::NeuronCoreSpec spec = testing::core_spec(instance);
    builder::ProgramBuilder program(spec, uint32_t(seeds.size()));
    const uint32_t partitions = spec.sbuf.partitions;
    for (uint32_t c = 0; c < seeds.size(); ++c) {
        builder::CoreBuilder& core = program.core(c);
        if (seeds[c]) core.set_stochastic_rounding(*seeds[c]);
        const uint32_t out = program.add_tensor("x" + std::to_string(c), isa::TensorRole::Output, isa::DType::Fp32,
                                                {partitions, kColumns});
        const builder::Buffer b = core.sbuf(kColumns * 2, "x");
        const builder::View x = builder::tile(b, isa::DType::Fp16, 0, partitions, 0, kColumns);
        core.memset(isa::Engine::Dve, x, 1024.0f);
        // Alternate engines: the rounding state is the core's, whichever engine writes.
        const isa::Engine side = core.has_engine(isa::Engine::Pool) ? isa::Engine::Pool : isa::Engine::Act;
        for (int i = 0; i < 2048; ++i) core.tensor_scalar(i % 2 ? side : isa::Engine::Dve, x, x, isa::AluOp::Add, 0.5f);
        const builder::View dst =
            builder::dram(builder::dram_rows(out, isa::DType::Fp32, kColumns, 0, partitions, 0, kColumns));
        core.dma(core.dma_channel("io", 0), builder::CoreBuilder::split_rows(dst, x, 1));
    }
    testing::DeviceRun run(instance, program.finish());
    run.run();
    std::vector<std::vector<float>> results;
    for (uint32_t c = 0; c < seeds.size(); ++c) results.push_back(run.read("x" + std::to_string(c)));
    return results;
}

void expect_near_2048(const std::vector<float>& sr, const std::string& what) {
    double mean = 0;
    for (float v : sr) {
        // Each element rounds up about half the time: a standard deviation of 23 around 2048.
        EXPECT_GT(v, 1900.0f) << what;
        EXPECT_LT(v, 2200.0f) << what;
        mean += v / double(sr.size());
    }
    std::cout << what << ": fp16 1024 + 0.5 x 2048 with SR, mean over " << sr.size() << " elements " << mean << "\n";
    EXPECT_NEAR(mean, 2048.0, 10.0) << what;
}

class StochasticRoundingProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(StochasticRoundingProgram, NearestEvenStaysAt1024AndStochasticEndsNear2048) {
    const auto x = add_half_2048_times(GetParam(), {std::nullopt, 0u});
    for (float v : x[0]) EXPECT_EQ(v, 1024.0f);
    expect_near_2048(x[1], GetParam() + " seed 0");
}

TEST_P(StochasticRoundingProgram, TheSameSeedGivesTheSameResultAnotherSeedAnother) {
    const auto same = add_half_2048_times(GetParam(), {5u, 5u});
    EXPECT_EQ(same[0], same[1]);
    expect_near_2048(same[0], GetParam() + " seed 5");
}

TEST_P(StochasticRoundingProgram, DifferentSeedsGiveDifferentResults) {
    const auto x = add_half_2048_times(GetParam(), {5u, 6u});
    EXPECT_NE(x[0], x[1]);
    expect_near_2048(x[1], GetParam() + " seed 6");
}

INSTANTIATE_TEST_SUITE_P(Instances, StochasticRoundingProgram, ::testing::Values("trn1.2xlarge", "inf2.xlarge"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

// The generator is the physical core's and continues from one execution to the next (as on the
// hardware, seeded once per load): two executions of the same program on the same data round
// differently; loading the program again starts from the seed, so the same sequence of executions
// gives the same values bit for bit.
TEST(StochasticRoundingProgram, TheStreamContinuesAcrossExecutionsAndALoadRestartsIt) {
    const config::NeuronCoreSpec spec = testing::core_spec("trn1.2xlarge");
    builder::ProgramBuilder program(spec, 1);
    program.set_stochastic_rounding(7);
    builder::CoreBuilder& core = program.core(0);
    const uint32_t partitions = spec.sbuf.partitions;
    const uint32_t out = program.add_tensor("x", isa::TensorRole::Output, isa::DType::Fp32, {partitions, kColumns});
    const builder::Buffer b = core.sbuf(kColumns * 2, "x");
    const builder::View x = builder::tile(b, isa::DType::Fp16, 0, partitions, 0, kColumns);
    core.memset(isa::Engine::Dve, x, 1024.0f);
    for (int i = 0; i < 64; ++i) core.tensor_scalar(isa::Engine::Dve, x, x, isa::AluOp::Add, 0.5f);
    core.dma(core.dma_channel("io", 0),
             builder::CoreBuilder::split_rows(
                 builder::dram(builder::dram_rows(out, isa::DType::Fp32, kColumns, 0, partitions, 0, kColumns)), x, 1));
    testing::DeviceRun run("trn1.2xlarge", program.finish());
    auto two_executions = [&] {
        std::vector<std::vector<float>> results;
        for (int e = 0; e < 2; ++e) {
            run.run();
            results.push_back(run.read("x"));
        }
        return results;
    };
    const auto first = two_executions();
    EXPECT_NE(first[0], first[1]) << "the second execution drew the first one's bits again";
    for (const auto& values : first)
        for (float v : values) EXPECT_TRUE(v > 1024.0f && v < 1088.0f) << v;  // 1056 +- 4 expected
    sim::core::load_tensors(run.program, run.placement, *run.platform);  // a new load
    EXPECT_EQ(two_executions(), first);
}

TEST(StochasticRoundingProgram, IsAnErrorAfterTheFirstInstruction) {
    builder::ProgramBuilder program(testing::core_spec("trn1.2xlarge"), 1);
    const builder::Buffer b = program.core(0).sbuf(2, "x");
    program.core(0).memset(isa::Engine::Dve, builder::tile(b, isa::DType::Fp16, 0, 8, 0, 1), 1.0f);
    EXPECT_THROW(program.set_stochastic_rounding(0), std::logic_error);
}

}  // namespace
}  // namespace nsim::kernels
