// `neuron-sim fault list|set|clear`: the driver's debugfs fault attributes (driver/fault_switches.h),
// persisted in the host state so the next run sees them.
#pragma once

#include <cstdint>
#include <string>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

struct FaultOptions {
    std::string action;   // "list", "set", "clear"
    std::string name;     // set: required; clear: empty = all
    int64_t times = 1;    // set: 0 off, N fail the next N times, -1 always
};
int run_fault(const MachineSelection& machine, const FaultOptions& options);

}  // namespace nsim::tools
