// The simulated host's rmmod and modprobe, both as `neuron-sim rmmod|modprobe [neuron]` and under
// their plain names: neuron-sim started through a link called rmmod or modprobe (the build makes
// them in build/tools/sbin, so `PATH=build/tools/sbin:$PATH rmmod neuron` works without shadowing
// the system's own tools). Under the plain names the errors are those tools' lines, e.g.
// "rmmod: ERROR: Module neuron is in use"; under neuron-sim, "neuron-sim: rmmod: ERROR: ...".
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

// "rmmod" or "modprobe" when argv[0] names one of them, else "".
std::string module_tool_named_by(const char* argv0);

// The whole program under a plain name (`tool` from module_tool_named_by).
int run_module_tool(const std::string& tool, int argc, char** argv);

// modprobe's -r/--remove: unload instead (`modprobe -r neuron` is rmmod neuron).
void add_remove_flag(CLI::App& modprobe, bool& remove);

// `neuron-sim rmmod|modprobe MODULE`; UserErrors name the command.
int run_module_command(const std::string& tool, const MachineSelection& machine, const std::string& module);

}  // namespace nsim::tools
