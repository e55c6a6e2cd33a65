// neuron-top: `--once` frames from prepared host states (utilisation per core from published
// activity, logical cores, memory tree, tabs), the keys that switch between all processes and one,
// one-line errors, and a live 32-core pretraining run.
#include <gtest/gtest.h>

#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "common/command_runner.h"
#include "config/config_set.h"
#include "neuron-top/core_utilization.h"
#include "neuron-top/cpu_usage.h"
#include "neuron-top/memory_tree.h"
#include "neuron-top/top_session.h"
#include "activity_publisher.h"
#include "background_command.h"
#include "prepared_host.h"
#include "process_identity.h"

namespace nsim {
namespace {

using tools::TopKey;
using tools::TopSession;
using tools::frame_text;

std::string top() { return test::tool_path("neuron-top"); }

// The line of a frame starting with `prefix`, or "".
std::string line_starting(const std::string& frame, const std::string& prefix) {
    size_t at = frame.rfind("\n" + prefix);
    if (frame.rfind(prefix, 0) == 0) at = 0;
    else if (at == std::string::npos) return "";
    else ++at;
    return frame.substr(at, frame.find('\n', at) - at);
}

// The percentages of a utilisation row, in order.
std::vector<double> percentages(const std::string& line) {
    std::vector<double> values;
    const std::regex cell(R"(\[ *([0-9.]+)%\])");
    for (std::sregex_iterator it(line.begin(), line.end(), cell), end; it != end; ++it) values.push_back(std::stod((*it)[1]));
    return values;
}

TEST(NeuronTop, OnceShowsBusyCoresModelsAndTabs) {
    test::PreparedHost host("trn1.2xlarge");
    auto p = host.start_process("neuron-sim run bert.bin");
    p.cores = {{0, 1}};
    p.open_devices = {0};
    driver::ModelRecord model{10, "bert.neff", {{0, 1}}, 0.5, 512ull << 20};
    model.core_memory = {{{0, 1}, 96ull << 20, 400ull << 20, 16ull << 20}};   // code, constants, tensors
    p.models = {model};
    p.device_memory_bytes = {{{0, 0}, 600ull << 20}};
    host.write(p);
    host.write_activity(p.pid, {{{0, 1}, 0.75}});

    const auto r = test::run_command(top() + " --once --instance trn1.2xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(neuron-top 0\.1\.0 running on i-[0-9a-f]{17} \(trn1\.2xlarge\))"))) << r.out;
    EXPECT_NE(r.out.find("NeuronCore v2 Utilization (Avg: 37.50%)"), std::string::npos) << r.out;
    EXPECT_EQ(percentages(line_starting(r.out, "ND0 ")), (std::vector<double>{0.0, 75.0})) << r.out;
    EXPECT_NE(r.out.find("System vCPU Usage"), std::string::npos);
    EXPECT_NE(r.out.find("Runtime vCPU Usage"), std::string::npos);
    EXPECT_NE(line_starting(r.out, "Device Used Memory").find("Total: 600.0MB"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +\[-\] ND 0 +600\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +\[-\] NC 1 +512\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +bert\.neff +10 +512\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +Model Code +96\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +Constants +400\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n {5}Runtime Memory +88\.0MB)"))) << r.out;
    const std::string device = line_starting(r.out, "Device Used Memory");
    for (const char* category : {"Tensors: 16.0MB", "Constants: 400.0MB", "Model Code: 96.0MB", "Runtime Memory: 88.0MB",
                                 "Model Scratchpad: 0.0B"})
        EXPECT_NE(device.find(category), std::string::npos) << device;
    const std::string tabs = line_starting(r.out, "Neuron Apps");
    EXPECT_NE(tabs.find(">[1]:all<"), std::string::npos) << tabs;
    EXPECT_NE(tabs.find("[2]:" + std::to_string(p.pid)), std::string::npos) << tabs;
}

TEST(NeuronTop, LogicalCoresShowTheMeanOfTheirPhysicalCores) {
    test::PreparedHost host("trn2.48xlarge");
    auto p = host.start_process("app");
    p.cores = {{3, 2}, {3, 3}};
    host.write(p);
    host.write_activity(p.pid, {{{3, 2}, 1.0}, {{3, 3}, 0.5}});
    const auto r = test::run_command(top() + " --once --width 200 --instance trn2.48xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("NeuronCore v3d Utilization"), std::string::npos) << r.out;
    EXPECT_EQ(percentages(line_starting(r.out, "ND3 ")), (std::vector<double>{0.0, 75.0, 0.0, 0.0})) << r.out;
    EXPECT_EQ(percentages(line_starting(r.out, "ND15")), (std::vector<double>{0.0, 0.0, 0.0, 0.0})) << r.out;
}

TEST(NeuronTop, IdleHostShowsEveryCoreAtZero) {
    test::PreparedHost host("inf1.6xlarge");
    const auto r = test::run_command(top() + " --once --instance inf1.6xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("NeuronCore v1 Utilization (Avg: 0.00%)"), std::string::npos) << r.out;
    for (const char* row : {"ND0 ", "ND1 ", "ND2 ", "ND3 "})
        EXPECT_EQ(percentages(line_starting(r.out, row)), (std::vector<double>(4, 0.0))) << r.out;
    EXPECT_EQ(line_starting(r.out, "Neuron Apps").find("[2]"), std::string::npos);
}

TEST(NeuronTop, DriverUnloadedSaysNoDeviceIsFound) {
    test::PreparedHost host("inf2.xlarge");
    host.write_machine(false);
    const auto r = test::run_command(top() + " --once --instance inf2.xlarge", host.env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("No Neuron devices found"), std::string::npos) << r.err;
}

TEST(NeuronTop, BadWidthIsAUsageError) {
    test::PreparedHost host("inf2.xlarge");
    const auto r = test::run_command(top() + " --once --width 5 --instance inf2.xlarge", host.env());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
}

TEST(NeuronTop, AProcessThatStoppedPublishingShowsIdleCores) {
    test::PreparedHost host("inf2.xlarge");
    auto stopped = host.start_process("stopped");
    stopped.cores = {{0, 0}};
    host.write(stopped);
    host.write_activity(stopped.pid, {{{0, 0}, 0.8}}, 30.0, 0.25);  // silent for 120 of its publish periods
    auto running = host.start_process("running");
    running.cores = {{0, 1}};
    host.write(running);
    host.write_activity(running.pid, {{{0, 1}, 0.6}}, 0.0, 0.25);
    const auto r = test::run_command(top() + " --once --instance inf2.xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(percentages(line_starting(r.out, "ND0 ")), (std::vector<double>{0.0, 60.0})) << r.out;
}

TEST(NeuronTop, ActivityAgesOutAfterSomeOfItsOwnPublishPeriods) {
    driver::ActivityRecord record;
    record.updated_wall_s = 1000.0;
    record.publish_period_wall_s = 0.25;
    EXPECT_TRUE(tools::activity_is_current(record, 1001.0));
    EXPECT_FALSE(tools::activity_is_current(record, 1010.0));
    // A slow publisher (a long functional execution between writes) stays current for longer.
    record.publish_period_wall_s = 20.0;
    EXPECT_TRUE(tools::activity_is_current(record, 1010.0));
    EXPECT_FALSE(tools::activity_is_current(record, 1100.0));
    // A first publish has no period yet: the floor applies.
    record.publish_period_wall_s = 0;
    EXPECT_TRUE(tools::activity_is_current(record, 1000.5));
    EXPECT_FALSE(tools::activity_is_current(record, 1010.0));
}

double process_cpu_s() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Spins in user space until this process has used `seconds` more CPU time; returns how much it used.
// The clock is read rarely: reading it is a system call.
double burn_cpu(double seconds) {
    const double start = process_cpu_s();
    volatile uint64_t sink = 0;
    while (process_cpu_s() - start < seconds)
        for (int i = 0; i < 1000000; ++i) sink = sink + 1;
    return process_cpu_s() - start;
}

TEST(NeuronTop, ProcessVcpuUseMatchesTheCpuTimeItSpent) {
    // This test's own process, against the CPU time it measures for itself (not /proc).
    const int me = getpid();
    const tools::CpuSample before = tools::sample_cpu({me});
    const double spent_s = burn_cpu(0.2);
    const tools::CpuSample after = tools::sample_cpu({me});
    const tools::CpuUsage usage = tools::cpu_usage(before, after, {me});
    const double machine_ticks = double(after.machine_total - before.machine_total);
    const double seen_ticks = (usage.runtime.user + usage.runtime.system) * machine_ticks;
    const double clock_ticks = double(sysconf(_SC_CLK_TCK));
    EXPECT_NEAR(seen_ticks, spent_s * clock_ticks, 3.0) << "spent " << spent_s << " s";
    EXPECT_GT(usage.runtime.user, usage.runtime.system);  // a loop in user space
    // Part of the machine's use, up to the skew between the two counters: a process's CPU time is
    // measured exactly, the machine's in clock ticks, and the two files are not read at one instant.
    EXPECT_LE(usage.runtime.user, usage.machine.user + 3.0 / machine_ticks);
}

// The "[user%, system%]" of a vCPU row.
std::vector<double> user_and_system(const std::string& line) {
    std::smatch m;
    if (!std::regex_search(line, m, std::regex(R"(\[ *([0-9.]+)%, *([0-9.]+)%\])"))) return {};
    return {std::stod(m[1]), std::stod(m[2])};
}

// "Total: 123.4MB" of the line starting with `prefix`, in MiB.
double total_mib(const std::string& frame, const std::string& prefix) {
    std::smatch m;
    const std::string line = line_starting(frame, prefix);
    if (!std::regex_search(line, m, std::regex(R"(Total: ([0-9.]+)(KB|MB|GB))"))) return -1;
    const double value = std::stod(m[1]);
    return m[2] == "KB" ? value / 1024 : m[2] == "GB" ? value * 1024 : value;
}

TEST(NeuronTop, ProcessTabShowsItsVcpuUseAndResidentMemory) {
    test::PreparedHost host("inf2.xlarge");
    const driver::ProcessIdentity me = driver::ProcessIdentity::self();
    driver::ProcessRecord record = me.record();
    record.cores = {{0, 0}};
    host.write(record);
    const auto configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    TopSession session(host.home(), configs.host("inf2.xlarge"));
    session.refresh();
    ASSERT_TRUE(session.handle(TopKey::Tab1to9, 1));  // this process's tab
    session.refresh();
    const double resident_before = total_mib(frame_text(session.frame(120)), "Host Used Memory");
    EXPECT_NEAR(resident_before, double(tools::resident_bytes(me.pid)) / (1 << 20), 1.0);

    constexpr size_t kAllocated = 64u << 20;
    std::vector<char> block(kAllocated, 1);  // touched: resident
    burn_cpu(0.1);
    session.refresh();
    const std::string frame = frame_text(session.frame(120));
    EXPECT_NEAR(total_mib(frame, "Host Used Memory") - resident_before, double(kAllocated >> 20), 4.0) << frame;
    const std::vector<double> runtime = user_and_system(line_starting(frame, "Runtime vCPU Usage"));
    const std::vector<double> system = user_and_system(line_starting(frame, "System vCPU Usage"));
    ASSERT_EQ(runtime.size(), 2u) << frame;
    ASSERT_EQ(system.size(), 2u) << frame;
    EXPECT_GT(runtime[0], 0.0) << frame;             // user time of the spin
    // Within the machine's, up to 3 clock ticks of skew (see ProcessVcpuUseMatchesTheCpuTimeItSpent)
    // over an interval of at least the 0.1 s spin on every vCPU, in percent.
    const double skew_pct = 100.0 * 3.0 / (0.1 * double(sysconf(_SC_CLK_TCK)) * double(sysconf(_SC_NPROCESSORS_ONLN)));
    EXPECT_LE(runtime[0], system[0] + skew_pct) << frame;
    EXPECT_EQ(block[kAllocated - 1], 1);
}

class TopKeys : public testing::Test {
protected:
    TopKeys() : host("inf2.xlarge") {
        a = host.start_process("first");
        a.cores = {{0, 0}};
        host.write(a);
        host.write_activity(a.pid, {{{0, 0}, 0.5}});
        b = host.start_process("second");
        b.cores = {{0, 1}};
        host.write(b);
        host.write_activity(b.pid, {{{0, 1}, 0.25}});
    }
    std::string frame_after(std::initializer_list<std::pair<TopKey, int>> keys) {
        const auto configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
        TopSession session(host.home(), configs.host("inf2.xlarge"));
        session.refresh();
        for (const auto& [key, tab] : keys) EXPECT_TRUE(session.handle(key, tab));
        return frame_text(session.frame(120));
    }

    test::PreparedHost host;
    driver::ProcessRecord a, b;
};

TEST_F(TopKeys, AllTabAggregatesEveryProcess) {
    const std::string frame = frame_after({});
    EXPECT_EQ(percentages(line_starting(frame, "ND0 ")), (std::vector<double>{50.0, 25.0})) << frame;
}

TEST_F(TopKeys, NextTabShowsOneProcessOnly) {
    const int first = std::min(a.pid, b.pid);
    const std::string frame = frame_after({{TopKey::NextTab, 0}});
    EXPECT_NE(line_starting(frame, "Neuron Apps").find(">[2]:" + std::to_string(first) + "<"), std::string::npos) << frame;
    EXPECT_EQ(percentages(line_starting(frame, "ND0 ")), (std::vector<double>{first == a.pid ? 50.0 : 0.0, first == b.pid ? 25.0 : 0.0}))
        << frame;
}

TEST_F(TopKeys, NumberKeysAndPreviousTabWrapAround) {
    const int last = std::max(a.pid, b.pid);
    const std::string third = frame_after({{TopKey::Tab1to9, 2}});
    EXPECT_NE(line_starting(third, "Neuron Apps").find(">[3]:" + std::to_string(last) + "<"), std::string::npos) << third;
    const std::string wrapped = frame_after({{TopKey::PreviousTab, 0}});
    EXPECT_NE(line_starting(wrapped, "Neuron Apps").find(">[3]:" + std::to_string(last) + "<"), std::string::npos) << wrapped;
    const std::string back = frame_after({{TopKey::Tab1to9, 2}, {TopKey::Tab1to9, 0}});
    EXPECT_NE(line_starting(back, "Neuron Apps").find(">[1]:all<"), std::string::npos) << back;
    // A tab that does not exist changes nothing.
    const std::string none = frame_after({{TopKey::Tab1to9, 8}});
    EXPECT_NE(line_starting(none, "Neuron Apps").find(">[1]:all<"), std::string::npos) << none;
}

TEST_F(TopKeys, TreeOpensAndClosesAndQuitEnds) {
    EXPECT_NE(frame_after({}).find("[-] ND 0"), std::string::npos);
    EXPECT_NE(frame_after({{TopKey::Toggle, 0}}).find("[+] ND 0"), std::string::npos);
    EXPECT_NE(frame_after({{TopKey::Left, 0}}).find("[+] ND 0"), std::string::npos);
    EXPECT_NE(frame_after({{TopKey::Left, 0}, {TopKey::Right, 0}}).find("[-] ND 0"), std::string::npos);
    const auto configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    TopSession session(host.home(), configs.host("inf2.xlarge"));
    session.refresh();
    EXPECT_FALSE(session.handle(TopKey::Quit));
}

// A model with copies on every core shows its memory on each of them, not all on the first.
TEST(NeuronTop, AModelsMemoryIsShownOnEveryCoreItUses) {
    test::PreparedHost host("inf1.2xlarge");
    auto p = host.start_process("neuron-sim run bert.bin");
    p.cores = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
    p.open_devices = {0};
    driver::ModelRecord model{1, "bert-large", p.cores, 0.5, 0};
    for (unsigned core = 0; core < 4; ++core) {
        model.core_memory.push_back({{0, core}, 10ull << 20, core % 2 == 0 ? 600ull << 20 : 0, 0});
        model.device_bytes += model.core_memory.back().total();
    }
    p.models = {model};
    host.write(p);
    const auto r = test::run_command(top() + " --once", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +\[-\] NC 0 +610\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +\[-\] NC 1 +10\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +\[-\] NC 2 +610\.0MB)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +\[-\] NC 3 +10\.0MB)"))) << r.out;
}

// The FLOPS view ('f') shows each core's floating-point rate from the published activity, and a tab
// shows the process's NEURON_PROCESS_TAG.
TEST(NeuronTop, FlopsViewAndProcessTags) {
    test::PreparedHost host("inf2.xlarge");
    auto p = host.start_process("app");
    p.cores = {{0, 0}};
    host.write(p);
    driver::ActivityRecord activity;
    activity.pid = p.pid;
    activity.updated_wall_s = driver::wall_clock_now_s();
    activity.tag = "my-bert-server";
    activity.cores = {{{0, 0}, {{1.0, 0.001, 0.0005, 25e9}}}};   // 25 GFLOP in 1 ms: 25 TFLOP/s
    host.state().write_activity(activity);
    const auto configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    TopSession session(host.home(), configs.host("inf2.xlarge"));
    session.refresh();
    const std::string percent = frame_text(session.frame(120));
    EXPECT_EQ(percentages(line_starting(percent, "ND0 ")), (std::vector<double>{50.0, 0.0})) << percent;
    EXPECT_NE(line_starting(percent, "Neuron Apps").find("[2]:my-bert-server"), std::string::npos) << percent;
    EXPECT_NE(percent.find("f: FLOPS on/off"), std::string::npos);
    ASSERT_TRUE(session.handle(TopKey::ToggleFlops));
    const std::string flops = frame_text(session.frame(120));
    EXPECT_NE(flops.find("Utilization (Avg: 12.50 TFLOPS)"), std::string::npos) << flops;
    EXPECT_NE(line_starting(flops, "ND0 ").find("[ 25.00 TF]"), std::string::npos) << flops;
    ASSERT_TRUE(session.handle(TopKey::ToggleFlops));
    EXPECT_NE(frame_text(session.frame(120)).find("(Avg: 25.00%)"), std::string::npos);
}


// A data-parallel pretraining run on the 32 NeuronCores of a trn1.32xlarge (a BERT-tiny-like model,
// timing only) seen by neuron-top while it goes on: every core is busy, the 30 cores of the 15
// devices the run counts rather than simulates (driver/runtime/replicated_devices.h) as busy as the
// first device's (they ran the same streams), in a frame that shows a micro-step.
TEST(NeuronTop, APretrainingRunOnTrn1_32xlargeShows32BusyCores) {
    test::PreparedHost host("trn1.32xlarge");
    const std::filesystem::path config = host.home() / "config.json";
    std::ofstream(config) << R"({"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
                                 "intermediate_size": 256, "max_position_embeddings": 64})";
    const std::string program = (host.home() / "pretrain.bin").string();
    const auto build = test::run_command(test::tool_path("neuron-build") + " bert-train --task pretrain --model " +
                                         config.string() + " --seq 16 --micro-batch 2 --grad-accum 4 --cores 32 --dtype bf16 "
                                         "--timing-only --instance trn1.32xlarge -o " + program);
    ASSERT_EQ(build.exit_code, 0) << build.err;
    test::Background run(host.env(), test::tool_path("neuron-sim") + " --instance trn1.32xlarge train " + program +
                                         " --steps 1000000");
    std::string frame;
    const bool all_busy = test::eventually([&] {
        frame = test::run_command(top() + " --once --width 200 --instance trn1.32xlarge", host.env()).out;
        const std::vector<double> first = percentages(line_starting(frame, "ND0 "));
        if (first.size() != 2 || first[0] <= 0 || first[1] <= 0) return false;
        for (unsigned d = 1; d < 16; ++d)
            if (percentages(line_starting(frame, fmt::format("ND{:<2}", d))) != first) return false;
        return true;
    });
    EXPECT_TRUE(all_busy) << frame;
}

}  // namespace
}  // namespace nsim
