// NeuronCore utilisation as neuron-top shows it: per logical core, the busy fraction over the last
// interval of simulated time its holder published (driver ActivityRecord), for all processes or one.
#pragma once

#include <vector>

#include "neuron-ls/host_snapshot.h"

namespace nsim::tools {

// [device][logical core] in 0..1. `pid` 0 means every process. Logical cores of several physical
// ones (LNC) show the mean of theirs; a core nobody published activity for is 0.
std::vector<std::vector<double>> core_utilization(const HostSnapshot& host, int pid);

}  // namespace nsim::tools
