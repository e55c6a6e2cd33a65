#include "neuron-sim/run_command.h"

#include <fstream>
#include <iostream>
#include <map>

#include "common/tool_main.h"
#include "core/program_placement.h"
#include "isa/container_io.h"
#include "isa/validator.h"
#include "tensor_files.h"
#include "validation/generation_limits.h"
#include "neuron-sim/check_command.h"
#include "neuron-sim/model_run_command.h"
#include "neuron-sim/model_session.h"
#include "neuron-sim/pairs_command.h"

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

// What the runtime would refuse too, said in the program's terms before any host is touched: the
// generation, the cores, the tensors' sizes, and every rule of the validator.
void check_runnable(const isa::Container& program, const config::HostSpec& spec) {
    try {
        sim::core::check_program_fits(program, spec);
    } catch (const sim::core::RunError& e) {
        throw UserError(e.what());
    }
    // The generation matches the host's chip (checked above): its limits are the ones the runtime checks.
    const std::vector<isa::Diagnostic> problems = isa::validate(program, sim::limits_of_chip(spec.chip));
    if (problems.empty()) return;
    std::string more = problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : "";
    throw UserError("invalid program: " + problems.front().text() + more);
}

// The program with its --input files as the data of those tensors (the runtime copies an input's data
// in at each execution and loads a weight's with the program).
isa::Container with_input_files(isa::Container program, const RunOptions& options) {
    if (!options.functional) throw UserError("--input and --output-dir need --functional (a timing run computes no values)");
    if (!options.pairs.empty()) throw UserError("--input and --output-dir do not combine with --pairs (it makes its own inputs)");
    std::map<std::string, std::filesystem::path> files;
    try {
        for (const std::string& text : options.inputs) {
            auto [name, path] = tensor_files::parse_binding(text);
            if (!files.emplace(name, path).second) throw UserError("--input " + name + " is given twice");
        }
        tensor_files::bind_inputs(program, files);
    } catch (const tensor_files::TensorFileError& e) {
        throw UserError(e.what());
    }
    return program;
}

}  // namespace

std::ofstream open_trace_file(const RunOptions& options) {
    std::ofstream out;
    if (options.trace_file.empty()) return out;
    out.open(options.trace_file);
    if (!out) throw UserError("cannot write the trace file " + options.trace_file);
    return out;
}

// Every program, built or assembled, is loaded by the runtime through the driver and executed by
// ringing the device (one path, DESIGN.md); only --pairs needs a BERT model.
int run_program(const MachineSelection& machine, const RunOptions& options) {
    const config::HostSpec spec = machine.resolve();
    // Read and decoded once: the runtime loads this program, not the file again.
    isa::Container program = read_program(isa::read_file(options.program), options.program);
    if (!options.inputs.empty() || !options.output_dir.empty()) program = with_input_files(std::move(program), options);
    if (!options.pairs.empty()) {
        if (!is_built_model(program))
            throw UserError("--pairs needs a BERT model built by neuron-build; " + options.program + " is a bare program");
        return run_pairs(machine, options, program);
    }
    check_runnable(program, spec);
    if (options.check && print_check_findings(program, options.program, std::cerr) > 0)
        return kExitUserError;   // the findings are the message, one per line
    return run_model(machine, options, spec, std::move(program));
}

}  // namespace nsim::tools
