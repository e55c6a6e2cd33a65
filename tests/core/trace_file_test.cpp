// `neuron-sim run --trace` as a user opens it: one execution of the tiled GEMM of isa/examples with
// the host's side on tracks of its own (load, input and output copies, runtime work, the wait for the
// device), semaphore waits as slices on the waiting queue, DMA and HBM bandwidth counters, slices with
// their operands and bytes; the execution and the window the user chose; one-line errors for bad
// choices. Everything read back from the JSON file and checked against each other and the run report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "common/temp_directory.h"
#include "cli_test_support.h"

namespace nsim {
namespace {

using test::neuron_sim_path;
namespace fs = std::filesystem;

std::string tiled_gemm_for_trace() { return test::assembled_example("tiled_gemm_double_buffered", "trace_tiled_gemm.bin"); }

struct Slice {
    std::string process, thread, name, cat;
    double ts, end;
    nlohmann::json args;
};

struct Counter {
    double ts;
    nlohmann::json values;
};

// A trace file read back: its slices with their track names, its counters by (process, name).
struct Trace {
    std::vector<Slice> slices;
    std::map<std::pair<std::string, std::string>, std::vector<Counter>> counters;

    explicit Trace(const std::string& path) {
        std::ifstream in(path);
        const nlohmann::json t = nlohmann::json::parse(in);
        std::map<int, std::string> processes;
        std::map<std::pair<int, int>, std::string> threads;
        for (const auto& e : t["traceEvents"]) {
            if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
            if (e["ph"] == "M" && e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
        }
        for (const auto& e : t["traceEvents"]) {
            if (e["ph"] == "X") {
                EXPECT_TRUE(threads.count({e["pid"], e["tid"]})) << e.dump();
                slices.push_back({processes[e["pid"]], threads[{e["pid"], e["tid"]}], e["name"], e["cat"], e["ts"],
                                  e["ts"].get<double>() + e["dur"].get<double>(), e.value("args", nlohmann::json::object())});
            }
            if (e["ph"] == "C") counters[{processes[e["pid"]], e["name"]}].push_back({e["ts"], e["args"]});
        }
        for (auto& [key, samples] : counters)
            std::sort(samples.begin(), samples.end(), [](const Counter& a, const Counter& b) { return a.ts < b.ts; });
    }

    std::vector<Slice> host(const std::string& name) const {
        std::vector<Slice> out;
        for (const Slice& s : slices)
            if (s.process == "host" && s.name == name) out.push_back(s);
        return out;
    }
    const Slice& one_host(const std::string& name) const {
        const auto found = host(name);
        EXPECT_EQ(found.size(), 1u) << name;
        static const Slice none{};
        return found.empty() ? none : *std::find_if(slices.begin(), slices.end(),
                                                    [&](const Slice& s) { return s.process == "host" && s.name == name; });
    }
    std::vector<Slice> engine(bool waits) const {
        std::vector<Slice> out;
        for (const Slice& s : slices)
            if (s.process != "host" && (s.cat == "wait") == waits) out.push_back(s);
        return out;
    }
    // The integral of one series of a counter over time, in bytes (GB/s x us = 1e3 bytes).
    double bytes(const std::string& process, const std::string& counter, const std::string& series) const {
        const auto& samples = counters.at({process, counter});
        double sum = 0;
        for (size_t i = 0; i + 1 < samples.size(); ++i)
            sum += samples[i].values[series].get<double>() * (samples[i + 1].ts - samples[i].ts) * 1e3;
        return sum;
    }
};

constexpr double kUs = 1e-6;  // the file's resolution: one picosecond

TEST(TraceFile, HostSlicesWaitSlicesAndCountersAreThereAndAgree) {
    const std::string prog = tiled_gemm_for_trace(), file = test::scratch_path("trace_gemm.json").string();
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --json --trace " + file);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    const Trace trace(file);

    // The host's tracks, in order: load, input copy, runtime work, the device's run, output copy.
    const Slice& load = trace.one_host("nrt_load tiled-gemm");
    const Slice& input = trace.one_host("input B");
    const Slice& overhead = trace.one_host("runtime overhead");
    const Slice& device = trace.one_host("doorbell to completion");
    const Slice& output = trace.one_host("output C");
    const Slice& call = trace.one_host("nrt_execute tiled-gemm");
    EXPECT_EQ(load.thread, "application");
    EXPECT_EQ(input.thread, "PCIe to device");
    EXPECT_EQ(output.thread, "PCIe from device");
    EXPECT_EQ(overhead.thread, "runtime");
    EXPECT_EQ(call.thread, "runtime");
    EXPECT_EQ(input.args["bytes"], 256 * 2048 * 2);
    EXPECT_EQ(output.args["bytes"], 128 * 2048 * 4);
    EXPECT_EQ(load.args["pcie_bytes"], report["load_pcie_bytes"]);
    EXPECT_LE(load.end, call.ts);
    for (const Slice* s : {&input, &overhead, &device, &output}) {
        EXPECT_GE(s->ts, call.ts - kUs) << s->name;
        EXPECT_LE(s->end, call.end + kUs) << s->name;
        EXPECT_GT(s->end, s->ts) << s->name;
    }
    EXPECT_LE(input.end, overhead.ts + kUs);
    EXPECT_LE(overhead.end, device.ts + kUs);
    EXPECT_LE(device.end, output.ts + kUs);

    // One execution's instructions, all inside the device's part of the call.
    const std::vector<Slice> instructions = trace.engine(false);
    EXPECT_EQ(instructions.size(), report["instructions"].get<size_t>());
    double first = 1e300, last = 0;
    for (const Slice& s : instructions) first = std::min(first, s.ts), last = std::max(last, s.end);
    EXPECT_GE(first, device.ts - kUs);
    EXPECT_LE(last, device.end + kUs);
    EXPECT_NEAR(last - first, report["time_us"].get<double>(), 1e-5);

    // Slices carry their instruction: operands as the assembler writes them, bytes for DMAs.
    for (const Slice& s : instructions) {
        ASSERT_TRUE(s.args.contains("operands")) << s.name;
        EXPECT_NE(s.args["operands"].get<std::string>().find(s.thread + " " + s.name), std::string::npos) << s.args.dump();
        if (s.name == "dma_copy") {
            EXPECT_GT(s.args["bytes"].get<uint64_t>(), 0u);
        }
    }

    // Waits: on the queue that waited, ending where its instruction starts; per queue they add up to
    // the report's semaphore wait.
    const std::vector<Slice> waits = trace.engine(true);
    ASSERT_FALSE(waits.empty());
    std::map<std::string, double> waited;
    for (const Slice& w : waits) {
        EXPECT_EQ(w.name, "semaphore wait");
        waited[w.thread] += w.end - w.ts;
        const auto next = std::find_if(instructions.begin(), instructions.end(), [&](const Slice& s) {
            return s.thread == w.thread && s.args["instruction"] == w.args["instruction"];
        });
        ASSERT_NE(next, instructions.end()) << w.args.dump();
        EXPECT_NEAR(next->ts, w.end, kUs) << w.thread << " " << w.args.dump();
        EXPECT_TRUE(w.args.contains("semaphore")) << w.args.dump();
    }
    EXPECT_GT(waited["pe"], 0.0);
    for (const auto& [queue, us] : waited)
        EXPECT_NEAR(us, report["engines"]["core0." + queue]["semaphore_wait_pct"].get<double>() / 100 *
                            report["time_us"].get<double>(), 1e-5) << queue;

    // Counters: the DMA and HBM bandwidth of core 0, integrating to the bytes of its slices and the report.
    const std::string core = instructions.front().process;
    ASSERT_TRUE(trace.counters.count({core, "DMA GB/s"}));
    ASSERT_TRUE(trace.counters.count({core, "HBM GB/s"}));
    double dma_bytes = 0, read = 0, write = 0;
    for (const Slice& s : instructions) {
        dma_bytes += s.args.value("bytes", 0.0);
        read += s.args.value("hbm_read_bytes", 0.0);
        write += s.args.value("hbm_write_bytes", 0.0);
    }
    EXPECT_EQ(dma_bytes, report["dma"]["bytes"].get<double>());
    EXPECT_EQ(read + write, report["device_memory"]["bytes"].get<double>());
    EXPECT_NEAR(trace.bytes(core, "DMA GB/s", "dma"), dma_bytes, 1e-3 * dma_bytes);
    EXPECT_NEAR(trace.bytes(core, "HBM GB/s", "read"), read, 1e-3 * read);
    EXPECT_NEAR(trace.bytes(core, "HBM GB/s", "write"), write, 1e-3 * write);
}

TEST(TraceFile, TracesTheChosenExecutionAndWindow) {
    const std::string prog = tiled_gemm_for_trace();
    const auto traced = [&](const std::string& name, const std::string& options) {
        const std::string file = test::scratch_path(name).string();
        const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --iterations 3 --trace " + file + " " + options);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return Trace(file);
    };
    const Trace first = traced("trace_1.json", "--trace-iteration 1"), second = traced("trace_2.json", "--trace-iteration 2");
    const Trace last = traced("trace_last.json", "");
    const double t1 = first.one_host("nrt_execute tiled-gemm").ts, t2 = second.one_host("nrt_execute tiled-gemm").ts;
    const double t3 = last.one_host("nrt_execute tiled-gemm").ts;
    EXPECT_LT(t1, t2);
    EXPECT_LT(t2, t3);
    EXPECT_GE(t2, first.one_host("nrt_execute tiled-gemm").end - kUs) << "the second execution follows the first";
    EXPECT_EQ(first.engine(false).size(), last.engine(false).size());

    // A window of 5 us of the second execution, from its doorbell on (the window counts from the
    // start of nrt_execute): only what overlaps it.
    const double from = second.one_host("doorbell to completion").ts - t2;
    const Trace window = traced("trace_window.json", fmt::format("--trace-iteration 2 --trace-window {:.6f}:{:.6f}", from, from + 5));
    const double origin = t2 + from;
    size_t engine_slices = 0;
    for (const Slice& s : window.slices) {
        EXPECT_GE(s.end, origin - kUs) << s.name;
        EXPECT_LE(s.ts, origin + 5 + kUs) << s.name;
        engine_slices += s.process != "host";
    }
    EXPECT_GT(engine_slices, 0u);
    EXPECT_LT(engine_slices, second.engine(false).size() + second.engine(true).size());
    EXPECT_TRUE(window.host("nrt_load tiled-gemm").empty()) << "the load is before the window";
    size_t counters = 0;
    for (const auto& [key, samples] : window.counters)
        for (const Counter& c : samples) {
            ++counters;
            EXPECT_GE(c.ts, origin - kUs) << key.second;
            EXPECT_LE(c.ts, origin + 5 + kUs) << key.second;
        }
    EXPECT_GT(counters, 0u);
}


std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What zlib reads back from a gzip file.
std::string gunzip(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    EXPECT_NE(file, nullptr) << path;
    std::string text;
    char buffer[1 << 14];
    for (int n; file && (n = gzread(file, buffer, sizeof buffer)) > 0;) text.append(buffer, size_t(n));
    if (file) gzclose(file);
    return text;
}

TEST(TraceFile, AGzFileIsTheSameTraceCompressed) {
    const std::string run = neuron_sim_path() + " --instance trn1.2xlarge run " + tiled_gemm_for_trace() + " --trace ";
    const std::string plain = test::scratch_path("trace_plain.json").string();
    const std::string packed = test::scratch_path("trace_packed.json.gz").string();
    ASSERT_EQ(test::run_command(run + plain).exit_code, 0);
    ASSERT_EQ(test::run_command(run + packed).exit_code, 0);
    const std::string text = file_text(plain);
    EXPECT_EQ(gunzip(packed), text);
    EXPECT_LT(fs::file_size(packed) * 3, text.size()) << "compressed";
    EXPECT_FALSE(Trace(plain).host("input B").empty());
}

TEST(TraceFile, BadChoicesAreOneLine) {
    const std::string run = neuron_sim_path() + " --instance trn1.2xlarge run " + tiled_gemm_for_trace();
    const std::string file = " --trace " + test::scratch_path("trace_err.json").string();
    test::expect_one_line_error(test::run_command(run + " --iterations 3 --trace-iteration 4" + file),
                          "--trace-iteration 4: the run makes 3 executions");
    test::expect_one_line_error(test::run_command(run + file + " --trace-window 5:2"), "END is not after START");
    test::expect_one_line_error(test::run_command(run + file + " --trace-window abc"), "--trace-window 'abc'");
    test::expect_one_line_error(test::run_command(run + file + " --trace-window x:3"), "'x' is not a number of microseconds");
    test::expect_one_line_error(test::run_command(run + " --trace-window 0:3"), "need --trace FILE");
}

}  // namespace
}  // namespace nsim
