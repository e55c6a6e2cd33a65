// The engine queues as SystemC processes: a run takes its simulated time in SystemC time while the
// rest of the platform's SystemC activity goes on, same-time wake-ups are served first-scheduled
// first, errors from inside a process reach run()'s caller, and no process of a run outlives it.
#include <gtest/gtest.h>

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cmath>
#include <string>

#include "engine_test_support.h"

namespace nsim {
namespace {

using sim::core::EngineScheduler;
using sim::core::ExecutionOptions;
using test::v2_core;

uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
uint64_t ps(double seconds) { return uint64_t(std::llround(seconds * 1e12)); }

// One DVE copy of 1024 elements per partition, then ACT waits for its signal.
const std::string kTwoEngines =
    ".target v2\n.cores 1\n.sem done 0\n.core 0\n"
    "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]], signal=done\n"
    "act activation dst=fp32 sbuf[0:128] +32768 [[1,1024]], src=fp32 sbuf[0:128] +16384 [[1,1024]], func=relu, "
    "scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=done>=1\n";

// A program placed on `platform`, run with `options`.
struct PlacedRun {
    isa::Container program;
    sim::core::ProgramPlacement placement;
    std::unique_ptr<EngineScheduler> engines;
    PlacedRun(sim::Platform& platform, const std::string& text, ExecutionOptions options = {})
        : program(test::assemble_program(text)), placement(sim::core::place_program(program, platform)),
          engines(std::make_unique<EngineScheduler>(platform, program, placement, options)) {}
};

// Processes spawned outside any module are top-level SystemC objects while they exist.
size_t top_level_processes() {
    size_t n = 0;
    for (const sc_core::sc_object* o : sc_core::sc_get_top_level_objects())
        n += std::string(o->kind()) == "sc_method_process" || std::string(o->kind()) == "sc_thread_process";
    return n;
}

TEST(EngineProcesses, ARunTakesItsSimulatedTimeInSystemCTime) {
    auto platform = test::elaborate("trn1.2xlarge");
    sc_core::sc_start(sc_core::sc_time(3, sc_core::SC_US));
    ExecutionOptions o;
    o.trace = true;
    PlacedRun run(*platform, kTwoEngines, o);
    const uint64_t before = now_ps();
    const auto stats = run.engines->run();
    EXPECT_EQ(now_ps() - before, ps(stats.time_s));
    EXPECT_GT(stats.time_s, 0.0);
    // Slices carry SystemC time: the first starts where the run did.
    const nlohmann::json trace = run.engines->trace().to_json();
    double first_us = 1e300;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "X") first_us = std::min(first_us, e["ts"].get<double>());
    EXPECT_NEAR(first_us, 3.0, 1e-6);
}

TEST(EngineProcesses, OtherSystemCActivityGoesOnDuringARunAndDoesNotKeepItGoing) {
    auto platform = test::elaborate("trn1.2xlarge");
    const std::string text =
        ".target v2\n.cores 1\n.tensor X input fp32 [128, 2048] device 0x0\n.core 0\n"
        "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,2048]], src=fp32 dram:X +0 [[2048,128],[1,2048]]\n";
    const double alone = PlacedRun(*platform, text).engines->run().time_s;

    // A device agent that never stops: the run must end by itself, not when SystemC runs dry.
    constexpr double kTickS = 100e-9;
    uint64_t ticks = 0;
    sc_core::sc_spawn([&ticks] {
        for (;;) {
            sc_core::wait(sc_core::sc_time(kTickS, sc_core::SC_SEC));
            ++ticks;
        }
    });
    const auto stats = PlacedRun(*platform, text).engines->run();
    EXPECT_EQ(ps(stats.time_s), ps(alone)) << "the same transfer on idle resources takes the same time";
    EXPECT_NEAR(double(ticks), stats.time_s / kTickS, 1.0) << "the agent ran along with the engines";
}

TEST(EngineProcesses, SameTimeWakeUpsAreServedInTheOrderTheyWereScheduled) {
    // Eight queues of DMA engine 0 (queue q runs on engine q mod 16) each load 256 KiB, all issued
    // at time 0 in program order: their bursts take the engine in that order, round after round,
    // so they finish in program order, one burst of the engine apart: 64 KiB and a quarter of the
    // DMA's 128 descriptors (one per partition row), which the engine processes burst by burst.
    const uint64_t bytes = 256 << 10;
    std::string text = ".target v2\n.cores 1\n.tensor X input fp32 [128, 4096] device 0x0\n.core 0\n";
    for (unsigned i = 0; i < 8; ++i)
        text += "dma" + std::to_string(16 * i) + " dma_copy dst=fp32 sbuf[0:128] +" + std::to_string(i * 2048) +
                " [[1,512]], src=fp32 dram:X +" + std::to_string(i * bytes) + " [[4096,128],[1,512]]\n";
    ExecutionOptions o;
    o.trace = true;
    test::EngineRun run("trn1.2xlarge", test::assemble_program(text), o);
    run.run();
    const auto slices = run.slices();
    ASSERT_EQ(slices.size(), 8u);
    std::map<int, double> end_us;  // by queue number
    for (const auto& s : slices)
        end_us[std::stoi(s["cat"].get<std::string>().substr(3))] = s["ts"].get<double>() + s["dur"].get<double>();
    const double burst_us = (double(64 << 10) / v2_core().dma_engine_bytes_per_s + 32 * v2_core().dma_descriptor_s) * 1e6;
    // Within 50 ps: a DMA's descriptor time is carried as whole bytes at the engine's rate (half a
    // byte is 17 ps at 27 GiB/s), and times are whole picoseconds.
    for (unsigned i = 1; i < 8; ++i)
        EXPECT_NEAR(end_us[16 * i] - end_us[16 * (i - 1)], burst_us, 5e-5) << "dma" << 16 * i;
}

TEST(EngineProcesses, AnErrorInsideAQueueReachesTheCallerAndTheRunStopsThere) {
    auto platform = test::elaborate("trn1.2xlarge");
    const size_t processes_before = top_level_processes();
    // DVE is busy for a long while when the send fails at time 0.
    std::string text = ".target v2\n.cores 2\n.tensor X input fp32 [128, 4] device 0x0\n.core 0\n";
    for (int i = 0; i < 50; ++i)
        text += "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]]\n";
    text += "dma0 send src=fp32 dram:X +0 [[4,128],[1,4]], peer_core=0, channel=1\n.core 1\nact nop\n";
    ExecutionOptions o;
    o.trace = true;
    {
        PlacedRun failing(*platform, text, o);
        try {
            failing.engines->run();
            FAIL() << "no error";
        } catch (const sim::core::DeadlockError& e) {
            FAIL() << "a deadlock instead of the send's error: " << e.what();
        } catch (const sim::core::RunError& e) {
            EXPECT_STREQ(e.what(), "core 0 queue dma0, instruction 0 (send): peer core 0 is not another core of the program");
        }
        const size_t slices = failing.engines->trace().slices();
        EXPECT_LE(slices, 1u) << "only DVE's first copy had issued";
        sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
        EXPECT_EQ(failing.engines->trace().slices(), slices) << "the failed run's queues stay stopped";
    }
    EXPECT_EQ(top_level_processes(), processes_before) << "the run's processes are gone";
    // The machine goes on: the next program runs to its end.
    const auto stats = PlacedRun(*platform, kTwoEngines).engines->run();
    EXPECT_EQ(stats.instructions, 2u);
}

TEST(EngineProcesses, NoProcessOutlivesItsRunWhetherItFinishesOrDeadlocks) {
    auto platform = test::elaborate("trn1.2xlarge");
    const size_t processes_before = top_level_processes();
    {
        ExecutionOptions o;
        o.iterations = 3;
        PlacedRun run(*platform, kTwoEngines, o);
        EXPECT_EQ(run.engines->run().iteration_s.size(), 3u);
    }
    EXPECT_EQ(top_level_processes(), processes_before);
    {
        const std::string deadlock = ".target v2\n.cores 1\n.sem never 0\n.core 0\nact nop wait=never>=1\npe nop\n";
        PlacedRun run(*platform, deadlock);
        EXPECT_THROW(run.engines->run(), sim::core::DeadlockError);
    }
    EXPECT_EQ(top_level_processes(), processes_before);
}

TEST(EngineProcesses, RunIsHostSoftwareAndRefusesToBeCalledFromAProcess) {
    auto platform = test::elaborate("trn1.2xlarge");
    PlacedRun run(*platform, kTwoEngines);
    std::string error;
    sc_core::sc_spawn([&] {
        try {
            run.engines->run();
        } catch (const std::logic_error& e) {
            error = e.what();
        }
    });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    EXPECT_NE(error.find("between sc_start calls"), std::string::npos) << error;
}

}  // namespace
}  // namespace nsim
