#include "neuron-sim/model_run_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "core/run_report.h"
#include "neuron-sim/model_session.h"
#include "neuron-sim/execution_progress.h"
#include "tensor_files.h"

namespace nsim::tools {
namespace {

// Nearest-rank percentile of `values`, percentile in (0, 100].
double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    const size_t rank = size_t(std::ceil(p / 100.0 * double(values.size())));
    return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

// Statistics over every execution of the run, in milliseconds.
struct LatencySummary {
    double min_ms, mean_ms, max_ms, p50_ms, p99_ms;

    explicit LatencySummary(const std::vector<double>& seconds)
        : min_ms(1e3 * *std::min_element(seconds.begin(), seconds.end())),
          mean_ms(1e3 * std::accumulate(seconds.begin(), seconds.end(), 0.0) / double(seconds.size())),
          max_ms(1e3 * *std::max_element(seconds.begin(), seconds.end())),
          p50_ms(1e3 * percentile(seconds, 50)),
          p99_ms(1e3 * percentile(seconds, 99)) {}

    nlohmann::json json() const {
        return {{"min", min_ms}, {"mean", mean_ms}, {"max", max_ms}, {"p50", p50_ms}, {"p99", p99_ms}};
    }
    std::string text() const {
        return fmt::format("p50 {:9.3f} ms   p99 {:9.3f} ms   (min {:.3f}, mean {:.3f}, max {:.3f})", p50_ms, p99_ms,
                           min_ms, mean_ms, max_ms);
    }
};

}  // namespace

int run_model(const MachineSelection& machine, const RunOptions& options, const config::HostSpec& spec, isa::Container program) {
    const auto wall_start = std::chrono::steady_clock::now();
    machine.remember_host(spec);
    std::ofstream trace_out = open_trace_file(options);
    ModelSession session(spec, std::move(program), options.functional);
    const bool bert = is_built_model(session.program());
    if (bert && options.functional && !has_weights(session.program())) throw UserError(kFunctionalNeedsWeights);

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
    const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    std::vector<std::filesystem::path> written;
    if (!options.output_dir.empty()) {
        try {
            written = tensor_files::write_outputs(session.program(), options.output_dir,
                                                  [&](const std::string& name) -> const std::vector<uint8_t>& { return session.output(name); });
        } catch (const tensor_files::TensorFileError& e) {
            throw UserError(e.what());
        }
    }

    const LatencySummary device(device_s), end_to_end(end_to_end_s);
    const uint32_t sequences = bert ? session.sequences_per_execution() : 0;
    const double throughput = bert && end_to_end.p50_ms > 0 ? sequences / (end_to_end.p50_ms / 1e3) : 0;
    const std::string name = session.model().name;
    if (options.json) {
        nlohmann::json report = sim::core::report_json(last.engines);
        // The engines' own figures are the last execution's; these are the whole run's.
        report["model"] = name;
        report["instance"] = spec.instance.name;
        report["execution_pcie_bytes"] = session.execution_pcie_bytes();
        report["iterations"] = options.iterations;
        report["iteration_us"] = {{"min", 1e3 * device.min_ms}, {"mean", 1e3 * device.mean_ms}, {"max", 1e3 * device.max_ms}};
        report["load_time_ms"] = 1e3 * session.load_time_s();
        report["load_pcie_bytes"] = session.load_pcie_bytes();
        report["latency_ms"] = end_to_end.json();
        report["device_latency_ms"] = device.json();
        report["end_to_end_ms"] = {{"host_embedding", 1e3 * last.host_embedding_s},
                                   {"pcie_and_runtime", 1e3 * (last.runtime_call_s - last.device_s)},
                                   {"device", 1e3 * last.device_s}};
        report["run_host_seconds"] = host_s;
        if (!options.output_dir.empty()) {
            report["outputs"] = nlohmann::json::array();
            for (const auto& path : written) report["outputs"].push_back(path.string());
        }
        if (bert) {
            report["batch"] = session.batch();
            report["copies"] = session.copies();
            report["throughput_per_s"] = throughput;
        }
        std::cout << report.dump(2) << "\n";
        return 0;
    }
    if (bert)
        std::cout << fmt::format("model {} on {}: {} cop{} x batch {}, embedding on {}, {}\n", name, spec.instance.name,
                                 session.copies(), session.copies() == 1 ? "y" : "ies", session.batch(),
                                 session.program().metadata_value("embedding"), session.program().metadata_value("dtype"));
    else
        std::cout << fmt::format("program {} on {}: {} NeuronCore{}\n", name, spec.instance.name,
                                 session.program().cores_needed, session.program().cores_needed == 1 ? "" : "s");
    std::cout << fmt::format("load time          {:10.3f} ms (through the driver: validation, allocation, {} bytes of code and "
                             "tensors over PCIe)\n",
                             1e3 * session.load_time_s(), session.load_pcie_bytes());
    std::cout << fmt::format("executions         {:10}    (each: doorbell, engines, completion notification)\n",
                             options.iterations);
    std::cout << "latency device     " << device.text() << "\n";
    std::cout << "latency end to end " << end_to_end.text() << "\n";
    const double pcie_and_runtime_ms = 1e3 * (last.runtime_call_s - last.device_s);
    // The PCIe bytes beside the PCIe time: the runtime's copies of the inputs and outputs.
    const std::string pcie = fmt::format("PCIe + runtime {:.3f} ms ({} bytes of inputs and outputs over PCIe)", pcie_and_runtime_ms,
                                         session.execution_pcie_bytes());
    if (bert)
        std::cout << fmt::format("                   last execution: host embedding {:.3f} ms, {}\n", 1e3 * last.host_embedding_s, pcie);
    else
        std::cout << fmt::format("                   last execution: {}\n", pcie);
    if (bert)
        std::cout << fmt::format("throughput         {:10.1f} inferences/s ({} sequences per execution)\n", throughput, sequences);
    std::cout << fmt::format("host time          {:10.3f} s for the whole run (load and {} execution{})\n", host_s,
                             options.iterations, options.iterations == 1 ? "" : "s");
    for (const auto& path : written) std::cout << "output written     " << path.string() << "\n";
    std::cout << "\nlast execution on the engines:\n" << sim::core::report_text(last.engines, options.verbose);
    return 0;
}

}  // namespace nsim::tools
