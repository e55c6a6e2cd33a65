#include "library/program_run.h"

#include <vector>

#include "library/library_error.h"
#include "tensor_files.h"

namespace nsim::library {

RunReport run(Session& session, const RunRequest& request) {
    std::vector<double> device_s, end_to_end_s;
    RunReport report;
    for (uint32_t i = 0; i < request.iterations; ++i) {
        session.trace_next_execution(request.trace ? request.trace->for_execution(i) : nullptr);
        report.last = request.graph.empty() ? session.execute() : session.execute_graph(request.graph);
        device_s.push_back(report.last.device_s);
        end_to_end_s.push_back(report.last.end_to_end_s());
        if (request.execution_finished) request.execution_finished();
    }
    if (request.trace) request.trace->finish();
    report.host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - request.started).count();

    if (!request.output_dir.empty()) {
        report.outputs_requested = true;
        report.outputs_written = tensor_files::write_outputs(
            session.program(), request.output_dir, [&](const std::string& name) -> const std::vector<uint8_t>& { return session.output(name); });
    }

    const isa::Container& program = session.program();
    report.program = session.name();
    report.instance = session.spec().instance.name;
    report.built_model = is_built_model(program);
    report.cores = program.cores_needed;
    report.load_time_s = session.load_time_s();
    report.load_pcie_bytes = session.load_pcie_bytes();
    report.execution_pcie_bytes = session.execution_pcie_bytes();
    report.iterations = request.iterations;
    report.device = LatencySummary::of(device_s);
    report.end_to_end = LatencySummary::of(end_to_end_s);
    if (report.built_model) {
        report.copies = session.copies();
        report.batch = session.batch();
        report.sequences_per_execution = session.sequences_per_execution();
        report.embedding = program.metadata_value("embedding");
        report.dtype = program.metadata_value("dtype");
        if (report.end_to_end.p50_ms > 0) report.throughput_per_s = report.sequences_per_execution / (report.end_to_end.p50_ms / 1e3);
    }
    return report;
}

}  // namespace nsim::library
