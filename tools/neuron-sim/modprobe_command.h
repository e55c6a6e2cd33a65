// `neuron-sim modprobe`: the simulated host's `modprobe neuron` - probe and reset every device. The
// host state lives under $NEURON_SIM_HOME (default ~/.neuron-sim), one directory per instance.
#pragma once

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

// Silent on success, like modprobe (and a no-op when loaded); a device that fails to come up is a
// one-line error (the device stays INVALID).
int run_modprobe(const MachineSelection& machine);

}  // namespace nsim::tools
