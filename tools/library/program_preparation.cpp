#include "library/program_preparation.h"

#include <filesystem>

#include <fmt/format.h>

#include "config/config_set.h"
#include "core/program_placement.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "isa/validator.h"
#include "library/library_error.h"
#include "tensor_files.h"
#include "validation/generation_limits.h"

namespace nsim::library {

namespace {

std::string and_more(size_t problems) {
    return problems > 1 ? " (and " + std::to_string(problems - 1) + " more)" : "";
}

isa::GenerationLimits limits_of(uint32_t generation, const std::vector<std::string>& config_files) {
    std::vector<std::filesystem::path> extra(config_files.begin(), config_files.end());
    const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir(), extra);
    return sim::limits_of_generation(configs, generation);
}

}  // namespace

isa::Container assemble(const std::string& source, const std::string& file) {
    try {
        isa::Assembly assembly = isa::assemble(source, file);
        isa::GenerationLimits limits;
        try {
            limits = limits_of(assembly.container.generation, {});
        } catch (const config::ConfigError& e) {
            throw Error(fmt::format("{}:{}:{}: error: {}", file, assembly.target_position.line, assembly.target_position.column, e.what()));
        }
        const std::vector<isa::Diagnostic> problems = isa::validate(assembly.container, limits);
        if (!problems.empty()) throw Error(assembly.locate(problems.front()) + and_more(problems.size()));
        return std::move(assembly.container);
    } catch (const isa::AssemblyError& e) {
        throw Error(e.what());
    }
}

isa::Container read_program(const std::string& path) {
    try {
        return isa::read_container_file(path);
    } catch (const isa::ContainerError& e) {
        throw Error(e.what());  // it names the file
    }
}

void check_runnable(const isa::Container& program, const config::HostSpec& spec) {
    try {
        sim::core::check_program_fits(program, spec);
    } catch (const sim::core::RunError& e) {
        throw Error(e.what());
    }
    // The generation matches the host's chip (checked above): its limits are the ones the runtime checks.
    const std::vector<isa::Diagnostic> problems = isa::validate(program, sim::limits_of_chip(spec.chip));
    if (problems.empty()) return;
    throw Error("invalid program: " + problems.front().text() + and_more(problems.size()));
}

isa::Container with_input_files(isa::Container program, const std::vector<std::string>& bindings) {
    std::map<std::string, std::filesystem::path> files;
    for (const std::string& text : bindings) {
        auto [name, path] = tensor_files::parse_binding(text);
        if (!files.emplace(name, path).second) throw Error("--input " + name + " is given twice");
    }
    tensor_files::bind_inputs(program, files);
    return program;
}

isa::Container with_input_arrays(isa::Container program, const std::map<std::string, npy::Array>& arrays) {
    tensor_files::bind_arrays(program, arrays);
    return program;
}

}  // namespace nsim::library
