// `neuron-sim rmmod neuron` (and the plain `rmmod neuron`, module_tools.h): the simulated host's
// `rmmod neuron`.
#pragma once

#include <string>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

// Refused with "ERROR: Module neuron is in use" while a process has a device open. Any other module
// is "not currently loaded": the simulated host has no other. UserErrors carry rmmod's own words,
// without the command's name (the caller says which command it was).
int run_rmmod(const MachineSelection& machine, const std::string& module);

}  // namespace nsim::tools
