#include "library/run_report.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/run_report.h"

namespace nsim::library {
namespace {

// Nearest-rank percentile of `values`, percentile in (0, 100].
double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    const size_t rank = size_t(std::ceil(p / 100.0 * double(values.size())));
    return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

}  // namespace

LatencySummary LatencySummary::of(const std::vector<double>& seconds) {
    LatencySummary s;
    s.min_ms = 1e3 * *std::min_element(seconds.begin(), seconds.end());
    s.max_ms = 1e3 * *std::max_element(seconds.begin(), seconds.end());
    // The summation can round the mean of equal values an ulp above them; it lies between min and max.
    s.mean_ms = std::clamp(1e3 * std::accumulate(seconds.begin(), seconds.end(), 0.0) / double(seconds.size()),
                           s.min_ms, s.max_ms);
    s.p50_ms = 1e3 * percentile(seconds, 50);
    s.p99_ms = 1e3 * percentile(seconds, 99);
    return s;
}

nlohmann::json LatencySummary::json() const {
    return {{"min", min_ms}, {"mean", mean_ms}, {"max", max_ms}, {"p50", p50_ms}, {"p99", p99_ms}};
}

std::string LatencySummary::text() const {
    return fmt::format("p50 {:9.3f} ms   p99 {:9.3f} ms   (min {:.3f}, mean {:.3f}, max {:.3f})", p50_ms, p99_ms, min_ms,
                       mean_ms, max_ms);
}

nlohmann::json report_json(const RunReport& r) {
    nlohmann::json report = sim::core::report_json(r.last.engines);
    // The engines' own figures are the last execution's; these are the whole run's.
    report["model"] = r.program;
    report["instance"] = r.instance;
    report["execution_pcie_bytes"] = r.execution_pcie_bytes;
    report["iterations"] = r.iterations;
    report["iteration_us"] = {{"min", 1e3 * r.device.min_ms}, {"mean", 1e3 * r.device.mean_ms}, {"max", 1e3 * r.device.max_ms}};
    report["load_time_ms"] = 1e3 * r.load_time_s;
    report["load_pcie_bytes"] = r.load_pcie_bytes;
    report["latency_ms"] = r.end_to_end.json();
    report["device_latency_ms"] = r.device.json();
    report["end_to_end_ms"] = {{"host_embedding", 1e3 * r.last.host_embedding_s},
                               {"pcie_and_runtime", 1e3 * (r.last.runtime_call_s - r.last.device_s)},
                               {"device", 1e3 * r.last.device_s}};
    report["run_host_seconds"] = r.host_s;
    if (r.outputs_requested) {
        report["outputs"] = nlohmann::json::array();
        for (const auto& path : r.outputs_written) report["outputs"].push_back(path.string());
    }
    if (r.built_model) {
        report["batch"] = r.batch;
        report["copies"] = r.copies;
        report["throughput_per_s"] = r.throughput_per_s;
    }
    return report;
}

std::string report_text(const RunReport& r, bool verbose) {
    std::string out;
    if (r.built_model)
        out += fmt::format("model {} on {}: {} cop{} x batch {}, embedding on {}, {}\n", r.program, r.instance, r.copies,
                           r.copies == 1 ? "y" : "ies", r.batch, r.embedding, r.dtype);
    else
        out += fmt::format("program {} on {}: {} NeuronCore{}\n", r.program, r.instance, r.cores, r.cores == 1 ? "" : "s");
    out += fmt::format("load time          {:10.3f} ms (through the driver: validation, allocation, {} bytes of code and "
                       "tensors over PCIe)\n",
                       1e3 * r.load_time_s, r.load_pcie_bytes);
    out += fmt::format("executions         {:10}    (each: doorbell, engines, completion notification)\n", r.iterations);
    out += "latency device     " + r.device.text() + "\n";
    out += "latency end to end " + r.end_to_end.text() + "\n";
    const double pcie_and_runtime_ms = 1e3 * (r.last.runtime_call_s - r.last.device_s);
    // The PCIe bytes beside the PCIe time: the runtime's copies of the inputs and outputs.
    const std::string pcie = fmt::format("PCIe + runtime {:.3f} ms ({} bytes of inputs and outputs over PCIe)", pcie_and_runtime_ms,
                                         r.execution_pcie_bytes);
    if (r.built_model)
        out += fmt::format("                   last execution: host embedding {:.3f} ms, {}\n", 1e3 * r.last.host_embedding_s, pcie);
    else
        out += fmt::format("                   last execution: {}\n", pcie);
    if (r.built_model)
        out += fmt::format("throughput         {:10.1f} inferences/s ({} sequences per execution)\n", r.throughput_per_s,
                           r.sequences_per_execution);
    out += fmt::format("host time          {:10.3f} s for the whole run (load and {} execution{})\n", r.host_s, r.iterations,
                       r.iterations == 1 ? "" : "s");
    for (const auto& path : r.outputs_written) out += "output written     " + path.string() + "\n";
    out += "\nlast execution on the engines:\n" + sim::core::report_text(r.last.engines, verbose);
    return out;
}

}  // namespace nsim::library
