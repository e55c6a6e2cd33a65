// NeuronCore utilisation as neuron-top shows it: per logical core, the busy fraction over the last
// interval of simulated time its holder published (driver ActivityRecord), for all processes or one.
#pragma once

#include <vector>

#include "neuron-ls/host_snapshot.h"

namespace nsim::tools {

// [device][logical core] in 0..1. `pid` 0 means every process. Logical cores of several physical
// ones (LNC) show the mean of theirs; a core nobody published activity for is 0, and so is one whose
// process has stopped executing (see activity_is_current).
std::vector<std::vector<double>> core_utilization(const HostSnapshot& host, int pid);

// [device][physical core] in 0..1: what a logical core's mean is made of (neuron-monitor's v3d).
std::vector<std::vector<double>> physical_core_utilization(const HostSnapshot& host, int pid);

// [device][logical core] floating-point operations per second of simulated time over the last
// interval (the matmul work the runtime published with it), for neuron-top's FLOPS view and
// neuron-monitor's `flops`.
std::vector<std::vector<double>> core_flops_per_s(const HostSnapshot& host, int pid);

// Whether a process's last published interval still describes it at `now_wall_s`: it publishes
// after every execution (the runtime) or slice of a run (neuron-sim run), so a record older than a
// few of its own publish periods (and never less than a floor for the first one) belongs to a process
// that has stopped executing.
bool activity_is_current(const driver::ActivityRecord& record, double now_wall_s);

}  // namespace nsim::tools
