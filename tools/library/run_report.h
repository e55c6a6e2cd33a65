// What a run of a program reports (`neuron-sim run`, the Python module's Result.report): the load
// (time, bytes over PCIe), latency over every execution (min/mean/max, p50/p99; device-only and end
// to end: host embedding, PCIe in, engines, PCIe out), the host time of the whole run, and the last
// execution's engines (sim/core/run_report.h). BERT models add their batch, copies and throughput.
// One struct; the text for people and the JSON object are both printed from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "library/program_session.h"

namespace nsim::library {

// Statistics over every execution of a run, in milliseconds.
struct LatencySummary {
    double min_ms = 0, mean_ms = 0, max_ms = 0, p50_ms = 0, p99_ms = 0;

    static LatencySummary of(const std::vector<double>& seconds);   // at least one
    nlohmann::json json() const;
    std::string text() const;
};

struct RunReport {
    std::string program;            // the model's name (metadata 'model', else the runtime's)
    std::string instance;
    bool built_model = false;       // a neuron-build BERT: batch, copies, embedding, throughput
    uint32_t copies = 0, batch = 0, sequences_per_execution = 0;
    std::string embedding, dtype;   // built models: where the embedding runs, the dtype mix
    uint32_t cores = 0;             // NeuronCores the program needs
    double load_time_s = 0;
    uint64_t load_pcie_bytes = 0;       // code and tensors at load
    uint64_t execution_pcie_bytes = 0;  // inputs and outputs of each execution
    uint32_t iterations = 0;
    LatencySummary device, end_to_end;
    ExecutionTiming last;           // the last execution, engines included
    double throughput_per_s = 0;    // built models: sequences per second at the end-to-end p50
    double host_s = 0;              // host (wall) time of the whole run
    bool outputs_requested = false; // an output directory was given
    std::vector<std::filesystem::path> outputs_written;
};

nlohmann::json report_json(const RunReport& report);
// `verbose`: the engines' table lists every queue, not one line per core and engine kind.
std::string report_text(const RunReport& report, bool verbose);

}  // namespace nsim::library
