#include "neuron-sim/run_command.h"

#include <fstream>
#include <iostream>
#include <memory>

#include "common/tool_main.h"
#include "core/engine_scheduler.h"
#include "core/run_report.h"
#include "isa/container_io.h"
#include "isa/validator.h"
#include "validation/generation_limits.h"
#include "neuron-sim/model_run_command.h"
#include "neuron-sim/model_session.h"
#include "neuron-sim/pairs_command.h"
#include "neuron-sim/host_presence.h"
#include "neuron-sim/sliced_run.h"

namespace nsim::tools {
// The container's own message does not say which file it is about.
isa::Container read_program(const std::vector<uint8_t>& bytes, const std::string& path) {
    try {
        return isa::read_container(bytes);
    } catch (const isa::ContainerError& e) {
        throw UserError(path + ": " + e.what());
    }
}

namespace {

void validate_for_machine(const isa::Container& program, const MachineSelection& machine) {
    std::vector<std::filesystem::path> extra(machine.config_files.begin(), machine.config_files.end());
    const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir(), extra);
    const std::vector<isa::Diagnostic> problems = isa::validate(program, sim::limits_of_generation(configs, program.generation));
    if (problems.empty()) return;
    std::string more = problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : "";
    throw UserError("invalid program: " + problems.front().text() + more);
}

// How often (host time) a long run tells the host state how busy its cores were, for neuron-top.
constexpr double kPublishPeriodHostS = 0.25;

// Best effort: a run without a usable host state still runs; only the viewers miss it.
std::unique_ptr<HostPresence> join_host(const config::HostSpec& spec, const sim::core::ProgramPlacement& placement) {
    try {
        return std::make_unique<HostPresence>(spec, placement);
    } catch (const driver::HostStateError& e) {
        std::cerr << "neuron-sim: warning: " << e.what() << "; neuron-ls and neuron-top will not see this run\n";
        return nullptr;
    }
}

}  // namespace

std::ofstream open_trace_file(const RunOptions& options) {
    std::ofstream out;
    if (options.trace_file.empty()) return out;
    out.open(options.trace_file);
    if (!out) throw UserError("cannot write the trace file " + options.trace_file);
    return out;
}

int run_program(const MachineSelection& machine, const RunOptions& options) {
    const config::HostSpec spec = machine.resolve();
    const std::vector<uint8_t> bytes = isa::read_file(options.program);
    const isa::Container program = read_program(bytes, options.program);
    // A model from neuron-build runs as an application runs it: through the runtime and the driver.
    if (is_built_model(program))
        return options.pairs.empty() ? run_model(machine, options, bytes) : run_pairs(machine, options, bytes, program);
    if (!options.pairs.empty()) throw UserError("--pairs needs a BERT model built by neuron-build; " + options.program + " is a bare program");
    std::ofstream trace_out = open_trace_file(options);

    sim::Platform platform("machine", spec);
    sim::Platform::finish_elaboration();
    const sim::core::ProgramPlacement placement = sim::core::place_program(program, platform);
    validate_for_machine(program, machine);
    // Timing-only runs never touch data, so the tensors' contents are only placed for functional ones.
    if (options.functional) sim::core::load_tensors(program, placement, platform);

    sim::core::ExecutionOptions execution;
    execution.functional = options.functional;
    execution.trace = !options.trace_file.empty();
    execution.iterations = options.iterations;
    const std::unique_ptr<HostPresence> presence = join_host(spec, placement);
    auto publish = [&](const sim::core::RunStatistics& interval) {
        if (presence) presence->publish(interval);
    };
    sim::core::RunStatistics stats;
    if (execution.trace) {
        // One trace comes from one scheduler, so a traced run is published as one interval at its end.
        sim::core::EngineScheduler engines(platform, program, placement, execution);
        stats = engines.run();
        publish(stats);
        engines.trace().write(trace_out);
        if (!trace_out) throw UserError("cannot write the trace file " + options.trace_file);
    } else {
        stats = run_in_slices(platform, program, placement, execution, kPublishPeriodHostS, publish);
    }
    if (options.json)
        std::cout << sim::core::report_json(stats).dump(2) << "\n";
    else
        std::cout << sim::core::report_text(stats);
    return 0;
}

}  // namespace nsim::tools
