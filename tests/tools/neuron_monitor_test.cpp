// neuron-monitor while a run goes on: its JSON report carries the real tool's groups and key names
// (tools.md 3.2) with the run's own numbers, and neuron-monitor-prometheus serves the real exporter's
// metric names on a loopback port, scraped here with curl as Prometheus would.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "background_command.h"
#include "prepared_host.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

using test::Background;
using test::eventually;

std::string gemm_program(const fs::path& dir) {
    const std::string bin = (dir / "gemm.bin").string();
    const std::string source = std::string(NSIM_CONFIG_DIR) + "/../isa/examples/tiled_gemm_double_buffered.s";
    EXPECT_EQ(test::run_command(test::tool_path("neuron-as") + " " + source + " -o " + bin).exit_code, 0);
    return bin;
}

std::string write_config(const fs::path& dir, const std::string& tag_filter) {
    const fs::path path = dir / "monitor.conf";
    std::ofstream(path) << R"({"period": "300ms", "neuron_runtimes": [{"tag_filter": ")" << tag_filter
                        << R"(", "metrics": [{"type": "neuroncore_counters"}, {"type": "memory_used"},
                           {"type": "neuron_runtime_vcpu_usage"}, {"type": "execution_stats"}]}],
                           "system_metrics": [{"type": "vcpu_usage"}, {"type": "memory_info"},
                           {"period": "600ms", "type": "neuron_hw_counters"}]})";
    return path.string();
}

// A loopback port nobody listens on now: the kernel's pick for port 0.
int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        throw std::runtime_error("no free port");
    close(fd);
    return ntohs(address.sin_port);
}

class NeuronMonitor : public testing::Test {
protected:
    NeuronMonitor() : host("trn1.2xlarge") {}
    void start_run() {
        run = std::make_unique<Background>(host.env() + " NEURON_PROCESS_TAG=monitored-app",
                                           test::tool_path("neuron-sim") + " -i trn1.2xlarge run " + gemm_program(host.home()) +
                                               " --iterations 1000000");
    }
    test::PreparedHost host;
    std::unique_ptr<Background> run;
};

TEST_F(NeuronMonitor, JsonReportHasTheRealGroupsWhileARunGoesOn) {
    start_run();
    const std::string monitor = test::tool_path("neuron-monitor") + " -c " + write_config(host.home(), "monitored.*") + " --reports 2";
    nlohmann::json report, runtime;
    ASSERT_TRUE(eventually([&] {
        const auto r = test::run_command(monitor, host.env());
        if (r.exit_code != 0 || r.out.empty()) return false;
        std::istringstream lines(r.out);
        std::string line, last;
        while (std::getline(lines, line)) last = line;
        report = nlohmann::json::parse(last);
        for (const auto& entry : report["neuron_runtime_data"])
            if (entry["neuron_runtime_tag"] == "monitored-app" &&
                entry["report"]["execution_stats"]["execution_summary"]["completed"].get<uint64_t>() > 0)
                runtime = entry;
        return !runtime.is_null();
    })) << report.dump(2);
    EXPECT_GT(runtime["pid"].get<int>(), 0);
    const nlohmann::json& r = runtime["report"];
    for (const char* group : {"neuroncore_counters", "memory_used", "neuron_runtime_vcpu_usage", "execution_stats"}) {
        ASSERT_TRUE(r.contains(group)) << group;
        EXPECT_GT(r[group]["period"].get<double>(), 0.0) << group;
        EXPECT_EQ(r[group]["error"], "") << group;
    }
    const nlohmann::json& core = r["neuroncore_counters"]["neuroncores_in_use"]["0"];
    EXPECT_GT(core["neuroncore_utilization"].get<double>(), 0.0) << r.dump(2);
    EXPECT_GT(core["flops"].get<double>(), 0.0) << r.dump(2);   // the GEMM's matmuls
    const nlohmann::json& used = r["memory_used"]["neuron_runtime_used_bytes"];
    EXPECT_GT(used["neuron_device"].get<uint64_t>(), 0u);
    const nlohmann::json& nc0 = used["usage_breakdown"]["neuroncore_memory_usage"]["0"];
    for (const char* key : {"constants", "model_code", "model_shared_scratchpad", "runtime_memory", "tensors"})
        EXPECT_TRUE(nc0.contains(key)) << key;
    EXPECT_GT(nc0["model_code"].get<uint64_t>(), 0u);
    EXPECT_GT(nc0["constants"].get<uint64_t>(), 0u);   // the weight A
    for (const char* key : {"application_memory", "constants", "dma_buffers", "tensors"})
        EXPECT_TRUE(used["usage_breakdown"]["host"].contains(key)) << key;
    ASSERT_EQ(r["memory_used"]["loaded_models"].size(), 1u);
    EXPECT_EQ(r["memory_used"]["loaded_models"][0]["subgraphs"]["sg_00"]["neuroncore_index"], 0);
    EXPECT_TRUE(r["neuron_runtime_vcpu_usage"]["vcpu_usage"].contains("user"));
    const nlohmann::json& stats = r["execution_stats"];
    for (const char* key : {"generic", "numerical", "transient", "model", "runtime", "hardware"})
        EXPECT_TRUE(stats["error_summary"].contains(key)) << key;
    for (const char* key : {"completed_with_err", "completed_with_num_err", "timed_out", "incorrect_input", "failed_to_queue"})
        EXPECT_EQ(stats["execution_summary"][key], 0) << key;
    const nlohmann::json& total = stats["latency_stats"]["total_latency"];
    const nlohmann::json& device = stats["latency_stats"]["device_latency"];
    for (const char* p : {"p0", "p1", "p25", "p50", "p75", "p99", "p100"}) {
        ASSERT_TRUE(total[p].is_number()) << p;
        EXPECT_LE(device[p].get<double>(), total[p].get<double>()) << p;   // PCIe and the runtime come on top
    }
    EXPECT_LE(total["p0"].get<double>(), total["p100"].get<double>());

    const nlohmann::json& system = report["system_data"];
    EXPECT_TRUE(system["vcpu_usage"]["average_usage"].contains("idle"));
    EXPECT_GT(system["memory_info"]["memory_total_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(report["instance_info"]["instance_type"], "trn1.2xlarge");
    EXPECT_EQ(report["neuron_hardware_info"]["neuron_device_count"], 1);
    EXPECT_EQ(report["neuron_hardware_info"]["neuroncore_per_device_count"], 2);
}

TEST_F(NeuronMonitor, PrometheusEndpointServesTheRealMetricNames) {
    start_run();
    const int port = free_port();
    Background exporter(host.env(), test::tool_path("neuron-monitor") + " -c " + write_config(host.home(), ".*") + " | " +
                                        test::tool_path("neuron-monitor-prometheus") + " --port " + std::to_string(port));
    std::string metrics;
    ASSERT_TRUE(eventually([&] {
        metrics = test::run_command("curl -s http://127.0.0.1:" + std::to_string(port) + "/metrics").out;
        return metrics.find("execution_latency_seconds{") != std::string::npos &&
               metrics.find("runtime_tag=\"monitored-app\"") != std::string::npos;
    })) << metrics;
    for (const char* family : {"# TYPE neuroncore_utilization_ratio gauge", "# TYPE execution_latency_seconds gauge",
                               "# TYPE neuron_runtime_memory_used_bytes gauge", "# TYPE neuron_hardware_info gauge",
                               "# TYPE hardware_ecc_events_total counter", "# TYPE execution_status_total counter",
                               "# TYPE neuroncore_memory_usage_model_code gauge", "# TYPE system_memory_total_bytes gauge",
                               "# TYPE instance_info gauge"})
        EXPECT_NE(metrics.find(family), std::string::npos) << family << "\n" << metrics;
    EXPECT_NE(metrics.find("memory_location=\"neuron_device\""), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("percentile=\"p50\""), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("status_type=\"completed\""), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("instance_type=\"trn1.2xlarge\""), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("neuron_device_count=\"1\""), std::string::npos) << metrics;
}

// The first report comes one period after the monitor starts and covers that period: its CPU usage
// is of a real interval (a report at once measured nothing: every mode 0, idle too) and its period is
// the time that passed, not the configured one stamped on a zero-length interval.
TEST(NeuronMonitorFirstReport, CoversThePeriodSinceTheMonitorStarted) {
    test::PreparedHost host("trn1.2xlarge");
    const auto start = std::chrono::steady_clock::now();
    const auto r = test::run_command(test::tool_path("neuron-monitor") + " -c " + write_config(host.home(), ".*") + " --reports 1",
                                     host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.25);
    const nlohmann::json vcpu = nlohmann::json::parse(r.out)["system_data"]["vcpu_usage"];
    double total = 0;
    for (const auto& [mode, percent] : vcpu["average_usage"].items()) total += percent.get<double>();
    EXPECT_GT(total, 50.0) << vcpu.dump(2);   // the modes of a measured interval add up to about 100 %
    EXPECT_GE(vcpu["period"].get<double>(), 0.25) << vcpu.dump(2);
}

TEST(NeuronMonitorConfig, ABadConfigFileIsOneLine) {
    test::PreparedHost host("trn1.2xlarge");
    const fs::path path = host.home() / "bad.conf";
    std::ofstream(path) << R"({"period": "1s", "system_metrics": [{"type": "gpu_usage"}]})";
    const auto r = test::run_command(test::tool_path("neuron-monitor") + " -c " + path.string() + " --reports 1", host.env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("unknown metric type 'gpu_usage' (one of: vcpu_usage, memory_info, neuron_hw_counters)"),
              std::string::npos) << r.err;
    std::ofstream(path) << R"({"period": "soon"})";
    const auto period = test::run_command(test::tool_path("neuron-monitor") + " -c " + path.string(), host.env());
    EXPECT_EQ(period.exit_code, 1);
    EXPECT_NE(period.err.find("period 'soon' is not a duration"), std::string::npos) << period.err;
}

// The exporter reads lines from stdin: an endless line (/dev/zero) is one clear line and an exit, not
// a string that grows until the allocation fails.
TEST(NeuronMonitorPrometheus, AnEndlessLineOnStdinIsOneLineNotAnAllocationFailure) {
    const auto r = test::run_command("timeout 300 " + test::tool_path("neuron-monitor-prometheus") + " --port " +
                                     std::to_string(free_port()) + " < /dev/zero");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-monitor-prometheus: stdin: a line longer than 16 MiB is not a neuron-monitor report\n");
}

// neuron-monitor's output ends, so does the exporter: input that ends at once (before the server has
// begun listening) too, which kept it serving for ever. A line that is not a report is skipped.
TEST(NeuronMonitorPrometheus, StopsWhenItsInputEnds) {
    for (int i = 0; i < 5; ++i) {
        const auto r = test::run_command("echo garbage | timeout 60 " + test::tool_path("neuron-monitor-prometheus") +
                                         " --port " + std::to_string(free_port()));
        ASSERT_EQ(r.exit_code, 0) << r.err;   // timeout's 124 when it kept running
        EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("skipped a line that is not a report"), std::string::npos) << r.err;
    }
    const auto empty = test::run_command("timeout 60 " + test::tool_path("neuron-monitor-prometheus") + " --port " +
                                         std::to_string(free_port()) + " < /dev/null");
    EXPECT_EQ(empty.exit_code, 0) << empty.err;
}

// trn2 with two physical NeuronCores per logical one: each logical core also reports its physical
// cores' utilisation under "v3d" (tools.md 3.2), numbered nc_v3.<logical x 2 + i>.
TEST(NeuronMonitorCounters, LogicalCoresOfTrn2ShowTheirPhysicalCores) {
    test::PreparedHost host("trn2.48xlarge");
    auto p = host.start_process("app");
    p.cores = {{3, 2}, {3, 3}};
    host.write(p);
    host.write_activity(p.pid, {{{3, 2}, 1.0}, {{3, 3}, 0.5}});
    // A short period: the first report comes one period after the monitor starts, while the activity
    // written here is still current.
    const auto r = test::run_command(test::tool_path("neuron-monitor") + " -c " + write_config(host.home(), ".*") + " --reports 1",
                                     host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto report = nlohmann::json::parse(r.out);
    ASSERT_EQ(report["neuron_runtime_data"].size(), 1u) << r.out;
    const auto& cores = report["neuron_runtime_data"][0]["report"]["neuroncore_counters"]["neuroncores_in_use"];
    ASSERT_TRUE(cores.contains("13")) << cores.dump(2);   // device 3's second logical core of 4
    EXPECT_DOUBLE_EQ(cores["13"]["neuroncore_utilization"].get<double>(), 75.0);
    EXPECT_DOUBLE_EQ(cores["13"]["v3d"]["nc_v3.26"]["neuroncore_utilization"].get<double>(), 100.0);
    EXPECT_DOUBLE_EQ(cores["13"]["v3d"]["nc_v3.27"]["neuroncore_utilization"].get<double>(), 50.0);
    EXPECT_EQ(report["neuron_hardware_info"]["neuroncore_version"], "v3d");
    EXPECT_EQ(report["neuron_hardware_info"]["logical_neuroncore_config"], 2);
}

}  // namespace
}  // namespace nsim
