// What nccom-test measures (training.md A1.6), on the simulated instance: for each buffer size from
// min to max (times factor each time) a program of one collective per rank is generated, loaded by
// the runtime like any program (so neuron-ls and neuron-top see it, and the runtime refuses rank sets
// it does not run) and executed warmup + iterations times; a row gives the average time of the timed
// executions and the bandwidths nccom-test derives from it.
// Across nodes (nccom-test -N: ranks over several identical instances joined by EFA) a collective is
// the hierarchical algorithm's phases (sim/cluster/hierarchical_collective.h): each intra-node phase
// a program of its own executed on the instance for every node this process simulates, each
// inter-node phase costed from EFA once every node has arrived (library/node_exchange.h), so the
// nodes may be spread over MPI ranks. A row's time runs from the collective's start on every node to
// the last node's completion.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/types.h"
#include "library/instance.h"
#include "library/node_exchange.h"

namespace nsim::library {

struct CollectiveBenchmarkRequest {
    std::string operation = "all_reduce";  // all_reduce | all_gather | reduce_scatter
    uint32_t ranks = 2;                    // over all nodes; on each node its NeuronCores 0 .. ranks/nodes - 1
    uint32_t nodes = 1;                    // identical instances joined by EFA
    std::string min_size = "32M", max_size = "32M";   // bytes, optionally K, M or G (powers of 1024)
    uint64_t factor = 2;                   // each size is the previous one times this
    std::string dtype = "uint8";           // nccom-test's default
    uint32_t iterations = 20, warmup = 5;
};

struct CollectiveBenchmarkRow {
    uint64_t size_bytes = 0;   // the collective's buffer: all_reduce's and reduce_scatter's input, all_gather's output
    uint64_t count = 0;        // elements of that buffer
    double time_us = 0;        // average over the timed executions: the engines, doorbell to the last rank's completion
    double algbw_gib_s = 0;    // size / time
    double busbw_gib_s = 0;    // algbw x bus factor
};

// A size such as 8, 64K, 32M or 1G in bytes; Error (one line) naming `option` otherwise.
uint64_t parse_size(const std::string& text, const std::string& option);
// The element type named as nccom-test's -d names it; Error (one line) for a name it does not know or
// a type the simulated collectives do not move.
isa::DType collective_dtype(const std::string& name);
// nccom-test's bus factor: all_reduce 2(r-1)/r, all_gather and reduce_scatter (r-1)/r.
double bus_factor(const std::string& operation, uint32_t ranks);
// The sizes of a request, checked with the rest of it (one-line Error: fewer than 2 ranks, no
// iterations, a size of 0, not a whole number of elements, min above max, a factor below 2 when
// min < max, more elements than an operand holds, an unknown operation or data type, no node, ranks
// that do not split evenly over the nodes).
std::vector<uint64_t> benchmark_sizes(const CollectiveBenchmarkRequest& request);
// The request's nodes on instances of `spec`: Error (one line) when they are several and the instance
// has no EFA, or when a node would have more ranks than NeuronCores.
void check_nodes(const CollectiveBenchmarkRequest& request, const config::HostSpec& spec);

// Runs the request on `instance` for the nodes `nodes` gives this process (spread() over
// request.nodes already), calling `row_done` after each size (so a tool prints as it goes). Every
// process gets the same rows. Error (one line) for a bad request, or when the runtime refuses the
// program (rank set, memory).
std::vector<CollectiveBenchmarkRow> run_collective_benchmark(
    Instance& instance, const CollectiveBenchmarkRequest& request, NodeExchange& nodes,
    const std::function<void(const CollectiveBenchmarkRow&)>& row_done = {});

}  // namespace nsim::library
