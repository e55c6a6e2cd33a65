// The driver's debugging interfaces: `neuron-sim fault list|set|clear`, its debugfs fault attributes
// (driver/kernel_module/fault_switches.h) persisted in the host state so the next run sees them, and
// `neuron-sim dmesg`, its kernel log.
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
// `neuron-sim dmesg`: the host's kernel.log as dmesg prints it.
int run_dmesg(const MachineSelection& machine);

int run_fault(const MachineSelection& machine, const FaultOptions& options);

}  // namespace nsim::tools
