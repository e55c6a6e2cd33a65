// `neuron-sim info`: elaborate the machine and print it.
#pragma once

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

struct InfoOptions {
    bool json = false;
};

int run_info(const MachineSelection& machine, const InfoOptions& options);

}  // namespace nsim::tools
