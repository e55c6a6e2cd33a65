// The inter-node phase of a hierarchical collective (sim/cluster/hierarchical_collective.h) for the
// nodes this process simulates: the hook a multi-node program calls between its intra-node phases.
// Each local node arrives with the simulated time its ranks finished the previous phase (and, in a
// functional run, each local rank's buffer of the phase); the call exchanges the arrivals with every
// other process (library/node_exchange.h), starts the phase when the last node has arrived, costs it
// from the instance's EFA, and hands back each local node at the phase's end with its ranks' results
// (rank i of node k: the phase's result over rank i of every node). Identical on every process.
#pragma once

#include <vector>

#include "cluster/hierarchical_collective.h"
#include "config/host_spec.h"
#include "isa/types.h"
#include "library/node_exchange.h"

namespace nsim::library {

std::vector<NodeArrival> run_inter_node_phase(NodeExchange& nodes, const config::HostSpec& spec,
                                              const sim::cluster::CollectivePhase& phase, uint32_t ranks_per_node,
                                              isa::DType dtype, const std::vector<NodeArrival>& local);

// The latest time of `arrivals` (0 when none): when the last node got there.
uint64_t latest_arrival(const std::vector<NodeArrival>& arrivals);

}  // namespace nsim::library
