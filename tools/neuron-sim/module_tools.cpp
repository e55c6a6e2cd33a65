#include "neuron-sim/module_tools.h"

#include <filesystem>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/tool_main.h"
#include "neuron-sim/modprobe_command.h"
#include "neuron-sim/rmmod_command.h"

namespace nsim::tools {
namespace {

constexpr const char* kRmmod = "rmmod";
constexpr const char* kModprobe = "modprobe";

// The host is the one named, else the one the state home has: `rmmod neuron` needs no instance.
int run(const std::string& tool, const MachineSelection& machine, const std::string& module) {
    const MachineSelection host = machine.or_existing_host();
    return tool == kRmmod ? run_rmmod(host, module) : run_modprobe(host, module);
}

}  // namespace

void add_remove_flag(CLI::App& modprobe, bool& remove) {
    modprobe.add_flag("-r,--remove", remove, "Remove the module instead of loading it (as rmmod does)");
}

std::string module_tool_named_by(const char* argv0) {
    const std::string name = std::filesystem::path(argv0 ? argv0 : "").filename().string();
    return name == kRmmod || name == kModprobe ? name : "";
}

int run_module_tool(const std::string& tool, int argc, char** argv) {
    CLI::App app{tool == kRmmod ? "Unload a module of the simulated host (refused while a device is in use)"
                                : "Load a module of the simulated host: probe and reset every device",
                 tool};
    MachineSelection machine;
    machine.add_options(app);
    std::string module;
    app.add_option("module", module, "Module name (the simulated host has one: neuron)")->required();
    bool remove = false;
    if (tool == kModprobe) add_remove_flag(app, remove);
    return run_tool(app, argc, argv, [&] { return run(remove ? kRmmod : tool, machine, module); },
                    {{kHomeVariable, kHomeHelp}, {kInstanceVariable, kInstanceHelp}});
}

int run_module_command(const std::string& tool, const MachineSelection& machine, const std::string& module) {
    try {
        return run(tool, machine, module);
    } catch (const UserError& e) {
        throw UserError(fmt::format("{}: {}", tool, e.what()));
    }
}

}  // namespace nsim::tools
