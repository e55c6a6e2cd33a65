#include "neuron-sim/run_command.h"

#include <iostream>

#include "common/tool_main.h"
#include "isa/container_io.h"
#include "library/output_paths.h"
#include "library/program_preparation.h"
#include "library/program_session.h"
#include "library/training_run.h"
#include "neuron-sim/check_command.h"
#include "neuron-sim/model_run_command.h"
#include "neuron-sim/pairs_command.h"

namespace nsim::tools {
namespace {

// The program with its --input files as the data of those tensors.
isa::Container with_input_files(isa::Container program, const RunOptions& options) {
    if (!options.functional) throw UserError("--input and --output-dir need --functional (a timing run computes no values)");
    if (!options.pairs.empty()) throw UserError("--input and --output-dir do not combine with --pairs (it makes its own inputs)");
    return library::with_input_files(std::move(program), options.inputs);
}

}  // namespace

library::TraceOptions trace_options(const RunOptions& options) {
    return {options.trace_file, options.trace_iteration, options.trace_window};
}

// Every program, built or assembled, is loaded by the runtime through the driver and executed by
// ringing the device (one path, DESIGN.md); only --pairs needs a BERT model.
int run_program(const MachineSelection& machine, const RunOptions& options) {
    const config::HostSpec spec = machine.resolve();
    // Before any work, as the --trace file is opened before the run: not a failure after minutes of it.
    if (!options.profile_file.empty()) library::check_output_file("profile file", options.profile_file);
    // Read and decoded once: the runtime loads this program, not the file again.
    isa::Container program = library::read_program(options.program);
    if (!options.inputs.empty() || !options.output_dir.empty()) program = with_input_files(std::move(program), options);
    if (!options.pairs.empty()) {
        library::refuse_training_program(program, options.program, "--pairs");
        if (!library::is_built_model(program))
            throw UserError("--pairs needs a BERT model built by neuron-build; " + options.program + " is a bare program");
        return run_pairs(machine, options, std::move(program));
    }
    if (!options.graph.empty() && !program.graphs.empty() && !program.graph_index(options.graph))
        throw UserError("--graph " + options.graph + ": " + options.program + " has no graph of that name (its graphs: " +
                        program.graph_list() + ")");
    if (!options.graph.empty() && program.graphs.empty())
        throw UserError("--graph " + options.graph + ": " + options.program + " has a single unnamed graph");
    if (options.graph.empty() && program.graph_count() > 1)
        std::cerr << "note: " << options.program << " has " << program.graph_count() << " graphs (" << program.graph_list()
                  << "); running the first, '" << program.graphs.front() << "' (--graph chooses)\n";
    library::check_runnable(program, spec);
    if (options.check && print_check_findings(program, options.program, std::cerr) > 0)
        return kExitUserError;   // the findings are the message, one per line
    return run_model(machine, options, spec, std::move(program));
}

}  // namespace nsim::tools
