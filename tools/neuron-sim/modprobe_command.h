// `neuron-sim modprobe neuron` (and the plain `modprobe neuron`, module_tools.h): the simulated host's
// `modprobe neuron` - probe and reset every device. The host state lives under $NEURON_SIM_HOME
// (default ~/.neuron-sim), one directory per instance.
#pragma once

#include <string>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

// Silent on success, like modprobe (and a no-op when loaded); a device that fails to come up is a
// one-line error (the device stays INVALID). Any other module is not found: the simulated host has
// only the neuron module. UserErrors carry no command name (the caller says which command it was).
int run_modprobe(const MachineSelection& machine, const std::string& module);

}  // namespace nsim::tools
