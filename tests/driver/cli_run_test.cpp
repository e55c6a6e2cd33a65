// `neuron-sim run` of a neuron-build model as a user sees it when something is wrong on the host:
// after each fault switch, and while another process holds the cores. Every failure is one line on
// stderr and exit code 1 (not a crash), and the way back works.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_support.h"

namespace nsim {
namespace {

using test::Cli;
using test::CommandResult;

constexpr const char* kInstance = "inf2.xlarge";  // one device, two NeuronCores

// A 2-layer BERT with hidden size 128 on one NeuronCore: built and run in a fraction of a second.
std::string build_small_model(const Cli& cli) {
    const auto dir = cli.home.path();
    std::ofstream(dir / "config.json") << R"({"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 64})";
    const std::string model = (dir / "model.bin").string();
    const CommandResult r = test::run_command(test::tool_path("neuron-build") + " bert --model " + (dir / "config.json").string() +
                                              " --seq 16 --batch 1 --cores 1 --dtype fp32 --instance " + kInstance + " -o " + model);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return model;
}

// The run failed as a user error: exit code 1, one line on stderr, which starts with `start`.
void expect_refused(const CommandResult& r, const std::string& start) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("neuron-sim: " + start, 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
}

void expect_report(const CommandResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("model config on inf2.xlarge: 1 copy x batch 1"), std::string::npos) << r.out;
}

const std::string kInvalidDevice =
    "NRT:nrt_init Failed to initialize devices: nd0 is in an invalid state (recover with: neuron-sim --instance inf2.xlarge rmmod neuron && neuron-sim --instance inf2.xlarge modprobe neuron)\n";

TEST(CliRunFaults, FirmwareHangAtBringUpLeavesTheDeviceInvalidUntilRmmodAndModprobe) {
    Cli cli(kInstance);
    const std::string model = build_small_model(cli);
    ASSERT_EQ(cli("fault set firmware_hang 1").exit_code, 0);
    // The first run loads the module; the initial device reset is never acknowledged.
    CommandResult r = cli("run " + model);
    expect_refused(r, kInvalidDevice);
    r = cli("run " + model);  // nothing has reset the device since
    expect_refused(r, kInvalidDevice);
    ASSERT_EQ(cli("rmmod").exit_code, 0);
    r = cli("modprobe");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_report(cli("run " + model));
}

TEST(CliRunFaults, FailFwioReadAtBringUpLeavesTheDeviceInvalidUntilRmmodAndModprobe) {
    Cli cli(kInstance);
    const std::string model = build_small_model(cli);
    ASSERT_EQ(cli("fault set fail_fwio_read -1").exit_code, 0);
    expect_refused(cli("run " + model), kInvalidDevice);
    expect_refused(cli("run " + model), kInvalidDevice);
    ASSERT_EQ(cli("rmmod").exit_code, 0);  // debugfs goes with the module: the switch is off again
    ASSERT_EQ(cli("modprobe").exit_code, 0);
    expect_report(cli("run " + model));
}

TEST(CliRunFaults, FirmwareHangInTheRunsCoreResetFailsThatRunOnly) {
    Cli cli(kInstance);
    const std::string model = build_small_model(cli);
    ASSERT_EQ(cli("modprobe").exit_code, 0);
    ASSERT_EQ(cli("fault set firmware_hang 1").exit_code, 0);
    // nrt_init resets the cores it claims; a failed core reset fails the request, not the device
    // (only the driver's own full-device reset decides the device state), so the next run retries.
    const CommandResult r = cli("run " + model);
    expect_refused(r, "NRT:nrt_init Failed to reset NeuronCores: nd0: reset request ");
    EXPECT_NE(r.err.find(" was initiated, but failed to complete (firmware did not acknowledge within 120 s, "), std::string::npos)
        << r.err;
    expect_report(cli("run " + model));
}

// `fault` armed for one use fails the run that meets it with `error`; the next run works.
void expect_one_run_fails(const std::string& fault, const std::string& error) {
    Cli cli(kInstance);
    const std::string model = build_small_model(cli);
    ASSERT_EQ(cli("fault set " + fault + " 1").exit_code, 0);
    expect_refused(cli("run " + model), error);
    expect_report(cli("run " + model));
}

TEST(CliRunFaults, FailDmaWaitFailsTheLoadOfOneRun) {
    expect_one_run_fails("fail_dma_wait", "NRT:nrt_load DMA completion timeout on nd00 for eng ");
}

TEST(CliRunFaults, FailMcAllocFailsTheLoadOfOneRun) {
    expect_one_run_fails("fail_mc_alloc", "NRT:nrt_load neuron:mc_alloc: device mempool [0:0] total ");
}

TEST(CliRunBusy, CoresHeldByARuntimeProcessRefuseTheRunAndOtherCoresWork) {
    Cli cli(kInstance);
    const std::string model = build_small_model(cli);
    test::Child holder = cli.runtime_process(false, true);  // holds nc0
    ASSERT_EQ(holder.line(), "ok");
    const std::string in_use = "is in use by PID " + std::to_string(holder.pid()) + ": ";
    // By default a run claims every NeuronCore of the host.
    CommandResult r = cli("run " + model);
    expect_refused(r, "NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:nc0-nc1 Available:1 (nc0 " + in_use);
    r = cli("run " + model, "NEURON_RT_VISIBLE_CORES=0");
    expect_refused(r, "NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:nc0-nc0 Available:0 (nc0 " + in_use);
    expect_report(cli("run " + model, "NEURON_RT_VISIBLE_CORES=1"));
    holder.release();
    EXPECT_EQ(holder.wait(), 0);
    expect_report(cli("run " + model));
}

// Whether process `pid` holds NeuronCores in `cli`'s host.
bool holds_cores(const Cli& cli, int pid) {
    const driver::HostState state(cli.home.path(), cli.instance);
    for (const driver::ProcessRecord& p : state.live_processes())
        if (p.pid == pid && !p.cores.empty()) return true;
    return false;
}

TEST(CliRunBusy, ALongRunHoldsItsCoresUntilItEnds) {
    Cli cli(kInstance);
    const std::string model = build_small_model(cli);
    const std::string sim = test::tool_path("neuron-sim");
    const std::string home = cli.home.path().string();
    test::Child first([&](std::string&) {
        setenv("NEURON_SIM_HOME", home.c_str(), 1);
        setenv("NEURON_RT_VISIBLE_CORES", "1", 1);
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) return 126;
        execl(sim.c_str(), sim.c_str(), "--instance", kInstance, "run", model.c_str(), "--iterations", "1000000", nullptr);
        return 127;
    });
    struct StopOnFailure {
        int pid;
        ~StopOnFailure() {
            if (pid > 0) kill(pid, SIGKILL);  // a failed assertion must not leave the Child waiting for it
        }
    } stop{first.pid()};
    // Bounded, so that a run that never starts fails the test instead of hanging it.
    bool started = false;
    for (int poll = 0; poll < 1200 && !started; ++poll) {
        started = holds_cores(cli, first.pid());
        if (!started) usleep(50'000);
    }
    ASSERT_TRUE(started) << "neuron-sim run (PID " << first.pid() << ") never held its cores";
    const CommandResult r = cli("run " + model, "NEURON_RT_VISIBLE_CORES=1");
    expect_refused(r, "NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:nc1-nc1 Available:0 (nc1 is in use by PID " +
                          std::to_string(first.pid()) + ": " + sim + " --instance inf2.xlarge run ");
    expect_report(cli("run " + model, "NEURON_RT_VISIBLE_CORES=0"));
    kill(first.pid(), SIGTERM);
    EXPECT_EQ(first.wait(), 128 + SIGTERM);
    stop.pid = 0;
    expect_report(cli("run " + model, "NEURON_RT_VISIBLE_CORES=1"));  // the ended run left no claim
}

// `run` and `serve` report the same model's execution the same way: the host embeds each copy's
// batch (one host thread per copy, concurrently), then the runtime call.
TEST(CliRunServe, RunAndServeAgreeOnTheSameModelsFigures) {
    Cli cli(kInstance);
    const auto dir = cli.home.path();
    std::ofstream(dir / "config.json") << R"({"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 1,
        "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 64})";
    const std::string model = (dir / "copies.bin").string();
    ASSERT_EQ(test::run_command(test::tool_path("neuron-build") + " bert --model " + (dir / "config.json").string() +
                                " --seq 16 --batch 2 --cores 2 --dtype fp32 --embedding host --timing-only --instance " +
                                kInstance + " -o " + model).exit_code, 0);
    const CommandResult run = cli("run " + model + " --json");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const CommandResult serve = cli("serve " + model + " --clients 2 --requests 2 --json");
    ASSERT_EQ(serve.exit_code, 0) << serve.err;
    const auto r = nlohmann::json::parse(run.out), s = nlohmann::json::parse(serve.out);
    EXPECT_GT(r["end_to_end_ms"]["host_embedding"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(r["end_to_end_ms"]["host_embedding"].get<double>(), s["execution_ms"]["host_embedding_full_batch"].get<double>());
    EXPECT_NEAR(r["end_to_end_ms"]["device"].get<double>(), s["execution_ms"]["device"].get<double>(),
                0.01 * s["execution_ms"]["device"].get<double>());
}

}  // namespace
}  // namespace nsim
