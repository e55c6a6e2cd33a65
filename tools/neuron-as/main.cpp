// neuron-as: assembles a NeuronCore program (text) into an executable container.
//   neuron-as IN.s -o OUT.bin
// The program is validated against its target generation's limits from configs/ before writing.
#include <CLI/CLI.hpp>
#include <cstring>
#include <fmt/format.h>

#include "common/tool_main.h"
#include "config/config_set.h"
#include "isa/bounded_file.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "validation/generation_limits.h"

namespace {

constexpr size_t kMostDiagnostics = 20;
// Assembly is text: the shipped examples are a few KB, BERT-large's instructions about 8 MB, and
// .data rows a few times their tensors' bytes. 256 MiB is beyond any of them and stops /dev/zero.
constexpr uint64_t kMaxSourceBytes = uint64_t(256) << 20;

// Assembly errors point at file:line:column, as a compiler's do, so they carry no tool prefix.
int assemble_file(const std::string& input, const std::string& output, const std::string& config_dir) {
    const std::string source = nsim::isa::read_bounded_text(input, kMaxSourceBytes, "assembly source");
    try {
        const nsim::isa::Assembly assembly = nsim::isa::assemble(source, input);
        const auto configs = nsim::config::ConfigSet::load(
            config_dir.empty() ? nsim::config::ConfigSet::default_dir() : std::filesystem::path(config_dir));
        nsim::isa::GenerationLimits limits;
        try {
            limits = nsim::sim::limits_of_generation(configs, assembly.container.generation);
        } catch (const nsim::config::ConfigError& e) {
            fmt::print(stderr, "{}:{}:{}: error: {}\n", input, assembly.target_position.line,
                       assembly.target_position.column, e.what());
            return nsim::tools::kExitUserError;
        }
        const auto diagnostics = nsim::isa::validate(assembly.container, limits);
        for (size_t i = 0; i < diagnostics.size() && i < kMostDiagnostics; ++i)
            fmt::print(stderr, "{}\n", assembly.locate(diagnostics[i]));
        if (diagnostics.size() > kMostDiagnostics)
            fmt::print(stderr, "neuron-as: {} more errors not shown\n", diagnostics.size() - kMostDiagnostics);
        if (!diagnostics.empty()) return nsim::tools::kExitUserError;
        nsim::isa::write_container_file(output, assembly.container);
    } catch (const nsim::isa::AssemblyError& e) {
        fmt::print(stderr, "{}\n", e.what());
        return nsim::tools::kExitUserError;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("neuron-as: assemble a NeuronCore program into an executable container", "neuron-as");
    std::string input, output, config_dir;
    app.add_option("input", input, "assembly source (.s)")->required();
    app.add_option("-o,--output", output, "container to write (default: input with .bin)");
    app.add_option("--config-dir", config_dir, "configs/ directory (default: $NEURON_SIM_CONFIG_DIR or the built-in one)");
    return nsim::tools::run_tool(app, argc, argv, [&] {
        if (output.empty()) output = std::filesystem::path(input).replace_extension(".bin").string();
        return assemble_file(input, output, config_dir);
    });
}
