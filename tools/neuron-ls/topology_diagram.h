// neuron-ls --topology: the "Neuron Device Topology" drawing under the device table (tools.md 1.2,
// 1.3): the devices in rows, ◄––► between linked neighbours, and on a torus the wrap-around links
// drawn as arrows to `*` at the edges.
#pragma once

#include <string>

#include "neuron-ls/host_snapshot.h"

namespace nsim::tools {

std::string topology_diagram(const HostSnapshot& host);

}  // namespace nsim::tools
