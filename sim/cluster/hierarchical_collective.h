// A collective over ranks on several identical instances joined by EFA, as the Neuron collectives
// library runs it by default ("hierarchical", training.md A1.3; configs: an instance's
// efa.collective_algorithm): the intra-node phases run on each instance's NeuronLinks as instance
// collectives (sim/core's ring), the inter-node phase joins rank i of every node over EFA.
//   all_reduce      intra-node reduce-scatter -> inter-node all-reduce  -> intra-node all-gather
//   all_gather      inter-node all-gather     -> intra-node all-gather
//   reduce_scatter  intra-node reduce-scatter -> inter-node reduce-scatter
// The inter-node phase is a ring over the nodes for every local rank, all rings at once:
//   all_reduce 2(M-1) steps of a share S = ceil(b / M), all_gather (M-1) steps of S = b,
//   reduce_scatter (M-1) steps of S = ceil(b / M), b = one rank's buffer of the phase.
//   A step takes efa.latency_s plus the longer of
//     (ranks on the busiest EFA device) x S / efa.bytes_per_s  (rank i's chip sends on its EFA device:
//        each EFA sits on a chip of its own, training.md A1.1, so devices / efa.devices chips share one), and
//     (ranks on the busiest chip) x S / pcie.bytes_per_s     (the EFA reads and writes the chip's memory
//        over that chip's PCIe link, bypassing the host, A1.2).
//   The sends of a step overlap its receives (EFA and PCIe are full duplex). Reductions run in the
//   DMA engines in fp32 (A1.2); their HBM traffic is not charged (a step's S is far below what HBM
//   moves in a step's latency). Sources: Patarasuk & Yuan's ring (as sim/core's); estimate: the
//   collectives library's inter-node protocol and its per-step overheads are not public.
// Pure functions of the spec: no SystemC, no time of day, so every process computes the same.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "isa/types.h"

namespace nsim::sim::cluster {

// Simulated picoseconds of `seconds`, rounded: the unit of the cluster's times (and of the nodes'
// arrivals the processes exchange, tools/library/node_exchange.h).
inline uint64_t seconds_to_ps(double seconds) { return uint64_t(std::llround(seconds * 1e12)); }

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter };
const char* collective_name(CollectiveKind kind);   // "all_reduce", ...

struct CollectivePhase {
    bool inter_node = false;  // false: an instance collective over the node's ranks
    CollectiveKind kind = CollectiveKind::AllReduce;
    // Intra-node: the node's buffer as an instance collective of `kind` names it (all_reduce's and
    // reduce_scatter's input, all_gather's output). Inter-node: one rank's buffer (all_reduce's and
    // reduce_scatter's input, all_gather's per-rank block).
    uint64_t elements = 0;
};

// The phases of `kind` over `nodes` nodes of `ranks_per_node` ranks, `elements` being the buffer as
// nccom-test sizes it (all_gather: the output); below one element per rank, a rank still holds one.
// One node: the instance collective alone. Intra-node phases at one rank per node are left out.
std::vector<CollectivePhase> hierarchical_phases(CollectiveKind kind, uint64_t elements, uint32_t ranks_per_node,
                                                 uint32_t nodes);

// Simulated picoseconds of an inter-node phase over `nodes` instances of `spec` whose ranks are their
// NeuronCores 0 .. ranks_per_node - 1, elements of `element_bytes` bytes.
uint64_t inter_node_phase_ps(const config::HostSpec& spec, const CollectivePhase& phase, uint32_t element_bytes,
                             uint32_t ranks_per_node, uint32_t nodes);

// What an inter-node phase computes for one local rank: `buffers[k]` is that rank's buffer on node k
// (packed elements of `dtype`), the result is node k's at [k]. all_reduce: the sum, in fp32 in node
// order, rounded to dtype, on every node; all_gather: the buffers one after another, on every node;
// reduce_scatter: node k gets the k-th of M equal parts of the sum. std::invalid_argument when the
// buffers differ in size or do not split into M parts.
std::vector<std::vector<uint8_t>> inter_node_data(CollectiveKind kind, isa::DType dtype,
                                                  const std::vector<std::vector<uint8_t>>& buffers);

}  // namespace nsim::sim::cluster
