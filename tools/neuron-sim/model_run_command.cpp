#include "neuron-sim/model_run_command.h"

#include <chrono>
#include <iostream>

#include "common/tool_main.h"
#include "library/instance.h"
#include "library/program_run.h"
#include "library/trace_file.h"
#include "neuron-sim/execution_progress.h"
#include "neuron-sim/profile_output.h"

namespace nsim::tools {

int run_model(const MachineSelection& machine, const RunOptions& options, const config::HostSpec& spec, isa::Container program) {
    library::RunRequest request;   // the host time counts from here: configs, the host, the load, the executions
    machine.remember_host(spec);
    library::TraceFile trace(trace_options(options), options.iterations);
    library::Instance instance(spec);
    library::Session session(instance, std::move(program), options.functional);
    if (library::is_built_model(session.program()) && options.functional && !library::has_weights(session.program()))
        throw UserError(kFunctionalNeedsWeights);

    request.iterations = options.iterations;
    request.trace = &trace;
    request.output_dir = options.output_dir;
    request.graph = options.graph;
    library::RunReport report;
    {
        ExecutionProgress progress(session, "running", options.iterations);
        request.execution_finished = [&] { progress.execution_finished(); };
        report = library::run(session, request);
    }
    if (write_profile(options, spec, session.program(), report.last.engines)) return 0;
    if (options.json)
        std::cout << library::report_json(report).dump(2) << "\n";
    else
        std::cout << library::report_text(report, options.verbose);
    return 0;
}

}  // namespace nsim::tools
