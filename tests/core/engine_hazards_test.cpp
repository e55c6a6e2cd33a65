// Hazards besides semaphores (sim/core/engine_run_hazards.cpp): an instruction that reads what the
// previous instruction of its engine wrote waits for the engine's result latency; engines that
// share an SBUF or PSUM port (NeuronCore-v2: vector+gpsimd on SBUF, vector+scalar on PSUM) take
// turns on it; NeuronCore-v3 has no shared ports.
#include <gtest/gtest.h>

#include "engine_test_support.h"

namespace nsim {
namespace {

using test::EngineRun;
using test::v2_core;
using test::traced_options;

uint32_t result_latency(const config::NeuronCoreSpec& core, const std::string& engine) {
    for (const auto& e : core.engines)
        if (e.name == engine) return e.result_latency_cycles ? e.result_latency_cycles : core.sram_access_latency_cycles;
    throw std::out_of_range("no engine " + engine);
}

// Start time (ps) of each slice of `queue` ("dve", "pool", ...), in issue order.
std::vector<double> starts(const EngineRun& run, const std::string& queue) {
    std::vector<double> out;
    for (const auto& s : run.slices())
        if (s["cat"] == "core0." + queue || s["cat"] == queue) out.push_back(s["ts"].get<double>() * 1e6);
    return out;
}

double run_start(const EngineRun& run) {
    double first = 1e300;
    for (const auto& s : run.slices()) first = std::min(first, s["ts"].get<double>() * 1e6);
    return first;
}

TEST(Hazards, AnInstructionReadingItsEnginesLastResultWaitsForTheResultLatency) {
    // The second copy reads +0, which the first wrote; the third reads +8192, which nobody wrote.
    const std::string text =
        ".target v2\n.cores 1\n.core 0\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]]\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +16384 [[1,1024]], src=fp32 sbuf[0:128] +0 [[1,1024]]\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +32768 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]]\n";
    EngineRun run("trn1.2xlarge", test::assemble_program(text), traced_options());
    const auto stats = run.run();
    const std::vector<double> t = starts(run, "dve");
    ASSERT_EQ(t.size(), 3u);
    const double copy = test::cycles_ps(v2_core(), "vector", 1024);
    const double latency = test::cycles_ps(v2_core(), "vector", result_latency(v2_core(), "vector"));
    ASSERT_GT(latency, 0);
    EXPECT_NEAR(t[1] - t[0], copy + latency, 2);
    EXPECT_NEAR(t[2] - t[1], copy, 2);  // independent: back to back
    EXPECT_NEAR(run.queue(stats, "core0.dve").busy_s * 1e12, 3 * copy, 3);
}

// A vector and a gpsimd copy within SBUF, and a scalar activation reading PSUM, all free to start at 0.
const std::string kSharedPorts =
    ".core 0\n"
    "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]]\n"
    "pool tensor_copy dst=fp32 sbuf[0:128] +16384 [[1,1024]], src=fp32 sbuf[0:128] +24576 [[1,1024]]\n"
    "dve tensor_copy dst=fp32 sbuf[0:128] +32768 [[1,512]], src=fp32 psum[0:128] +0 [[1,512]]\n"
    "act activation dst=fp32 sbuf[0:128] +40960 [[1,512]], src=fp32 psum[0:128] +2048 [[1,512]], func=relu, "
    "scale=1, bias=none, reduce_op=none, reduce_dst=none\n";

TEST(Hazards, VectorAndGpsimdTakeTurnsOnSbufAndVectorAndScalarOnPsumOnNeuronCoreV2) {
    ASSERT_FALSE(v2_core().sbuf_shared_port_engines.empty());
    EngineRun run("trn1.2xlarge", test::assemble_program(".target v2\n.cores 1\n" + kSharedPorts), traced_options());
    run.run();
    const double t0 = run_start(run);
    const std::vector<double> dve = starts(run, "dve"), pool = starts(run, "pool"), act = starts(run, "act");
    ASSERT_EQ(dve.size(), 2u);
    ASSERT_EQ(pool.size(), 1u);
    ASSERT_EQ(act.size(), 1u);
    const double dve_copy = test::cycles_ps(v2_core(), "vector", 1024), dve_psum = test::cycles_ps(v2_core(), "vector", 512);
    const double pool_copy = test::cycles_ps(v2_core(), "gpsimd", 1024 + 150);  // GPSIMD_START + N
    const double act_psum = test::cycles_ps(v2_core(), "scalar", 512);
    auto disjoint = [](double a, double a_len, double b, double b_len) { return a + a_len <= b + 3 || b + b_len <= a + 3; };
    // Every vector instruction touches SBUF, as does the gpsimd copy: none of them overlap, and one
    // of them had to wait.
    EXPECT_TRUE(disjoint(dve[0], dve_copy, pool[0], pool_copy));
    EXPECT_TRUE(disjoint(dve[1], dve_psum, pool[0], pool_copy));
    EXPECT_GT(std::max(dve[0], pool[0]) - t0, 1000.0);
    // The PSUM reads of vector and scalar never overlap either.
    const bool apart = disjoint(dve[1], dve_psum, act[0], act_psum);
    EXPECT_TRUE(apart) << "act at " << act[0] << " ps, dve's PSUM read at " << dve[1] << " ps";
}

TEST(Hazards, NeuronCoreV3SharesNoPort) {
    const config::NeuronCoreSpec& v3 = test::shipped_configs().chip("trainium2").core;
    ASSERT_TRUE(v3.sbuf_shared_port_engines.empty());
    EngineRun run("trn2.48xlarge", test::assemble_program(".target v3\n.cores 1\n" + kSharedPorts), traced_options());
    run.run();
    const double t0 = run_start(run);
    EXPECT_NEAR(starts(run, "pool").at(0), t0, 1);
    EXPECT_NEAR(starts(run, "dve").at(0), t0, 1);
    EXPECT_NEAR(starts(run, "act").at(0), t0, 1);
}

}  // namespace
}  // namespace nsim
