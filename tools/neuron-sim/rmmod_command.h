// `neuron-sim rmmod`: the simulated host's `rmmod neuron`.
#pragma once

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

// Refused with "ERROR: Module neuron is in use" while a process has a device open.
int run_rmmod(const MachineSelection& machine);

}  // namespace nsim::tools
