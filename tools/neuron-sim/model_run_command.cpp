#include "neuron-sim/model_run_command.h"

#include <algorithm>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "core/run_report.h"
#include "neuron-sim/model_session.h"
#include "neuron-sim/execution_progress.h"

namespace nsim::tools {
namespace {

// Nearest-rank percentile of `values`, percentile in (0, 100].
double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    const size_t rank = size_t(std::ceil(p / 100.0 * double(values.size())));
    return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

struct LatencySummary {
    double p50_ms, p99_ms;
};

LatencySummary summarise(const std::vector<double>& seconds) {
    return {1e3 * percentile(seconds, 50), 1e3 * percentile(seconds, 99)};
}

}  // namespace

int run_model(const MachineSelection& machine, const RunOptions& options, const std::vector<uint8_t>& container_bytes) {
    const config::HostSpec spec = machine.resolve();
    std::ofstream trace_out = open_trace_file(options);
    ModelSession session(spec, container_bytes, options.functional);
    if (options.functional && !has_weights(session.program())) throw UserError(kFunctionalNeedsWeights);

    std::vector<double> device_s, end_to_end_s;
    ExecutionTiming last;
    {
        ExecutionProgress progress(session, "running", options.iterations);
        for (uint32_t i = 0; i < options.iterations; ++i) {
            if (trace_out.is_open() && i + 1 == options.iterations) session.trace_next_execution(&trace_out);
            last = session.execute();
            device_s.push_back(last.device_s);
            end_to_end_s.push_back(last.end_to_end_s());
            progress.execution_finished();
        }
    }
    if (trace_out.is_open() && !trace_out) throw UserError("cannot write the trace file " + options.trace_file);

    const LatencySummary device = summarise(device_s), end_to_end = summarise(end_to_end_s);
    const uint32_t sequences = session.sequences_per_execution();
    const double throughput = end_to_end.p50_ms > 0 ? sequences / (end_to_end.p50_ms / 1e3) : 0;
    if (options.json) {
        nlohmann::json report = sim::core::report_json(last.engines);
        report["model"] = session.program().metadata_value("model");
        report["batch"] = session.batch();
        report["copies"] = session.copies();
        report["iterations"] = options.iterations;
        report["load_time_ms"] = 1e3 * session.load_time_s();
        report["latency_ms"] = {{"p50", end_to_end.p50_ms}, {"p99", end_to_end.p99_ms}};
        report["device_latency_ms"] = {{"p50", device.p50_ms}, {"p99", device.p99_ms}};
        report["end_to_end_ms"] = {{"host_embedding", 1e3 * last.host_embedding_s},
                                   {"pcie_and_runtime", 1e3 * (last.runtime_call_s - last.device_s)},
                                   {"device", 1e3 * last.device_s}};
        report["throughput_per_s"] = throughput;
        std::cout << report.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("model {} on {}: {} cop{} x batch {}, embedding on {}, {}\n",
                             session.program().metadata_value("model"), spec.instance.name, session.copies(),
                             session.copies() == 1 ? "y" : "ies", session.batch(),
                             session.program().metadata_value("embedding"), session.program().metadata_value("dtype"));
    std::cout << fmt::format("load time          {:10.3f} ms (through the driver: validation, allocation, code and weights over PCIe)\n",
                             1e3 * session.load_time_s());
    std::cout << fmt::format("latency device     p50 {:9.3f} ms   p99 {:9.3f} ms\n", device.p50_ms, device.p99_ms);
    std::cout << fmt::format("latency end to end p50 {:9.3f} ms   p99 {:9.3f} ms   (host embedding {:.3f} ms, PCIe + runtime {:.3f} ms)\n",
                             end_to_end.p50_ms, end_to_end.p99_ms, 1e3 * last.host_embedding_s,
                             1e3 * (last.runtime_call_s - last.device_s));
    std::cout << fmt::format("throughput         {:10.1f} inferences/s ({} sequences per execution)\n", throughput, sequences);
    std::cout << "\nlast execution on the engines:\n" << sim::core::report_text(last.engines);
    return 0;
}

}  // namespace nsim::tools
