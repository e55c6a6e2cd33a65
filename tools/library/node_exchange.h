// The synchronisation of a simulated cluster: M identical instances ("nodes") spread over the
// processes of a run - all in this process, or in blocks over the MPI ranks when mpirun started it
// (node_exchange_mpi.cpp, the only file that includes mpi.h). Processes simulate their own nodes
// independently up to an inter-node collective, where each hands the others only what the
// simulation needs: when each of its nodes arrived (simulated time) and, in functional runs, its
// ranks' buffers. exchange() returns every node's arrival in node order, the same on every process,
// so whatever is computed from it (sim/cluster/hierarchical_collective.h) is identical to simulating
// every node in one process: a collective is a barrier in simulated time, and nothing crosses a
// node boundary anywhere else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "library/library_error.h"

namespace nsim::library {

struct NodeArrival {
    uint32_t node = 0;
    uint64_t time_ps = 0;                          // simulated time since the collective began
    std::vector<std::vector<uint8_t>> rank_data;   // functional runs: each local rank's buffer; timing runs: none
};

// exchange() on a process whose peer gave up (abandon()): the peer's one-line reason. The peer has
// said it already: a process receiving this must not abandon() in turn.
class ClusterAbandoned : public Error {
public:
    using Error::Error;
};

class NodeExchange {
public:
    virtual ~NodeExchange() = default;
    virtual uint32_t process() const = 0;    // 0 .. processes() - 1; process 0 reports
    virtual uint32_t processes() const = 0;

    uint32_t nodes() const { return nodes_; }
    // Spreads `nodes` nodes over the processes, in blocks of consecutive nodes; Error (one line) when
    // there are more processes than nodes.
    void spread(uint32_t nodes);
    uint32_t first_local_node() const;
    uint32_t local_node_count() const;

    // Every node's arrival (node order), given this process's nodes' (any order). Every process calls
    // it the same number of times. ClusterAbandoned when a process abandoned instead.
    virtual std::vector<NodeArrival> exchange(const std::vector<NodeArrival>& local) = 0;
    // Instead of the next exchange(): this process failed (`reason`, one line); the others learn it.
    virtual void abandon(const std::string& reason) = 0;
    // Returns when every process has called it.
    virtual void barrier() = 0;

private:
    uint32_t nodes_ = 1;
};

// Every node in this process.
std::unique_ptr<NodeExchange> single_process_nodes();
// The MPI ranks when an MPI launcher started this process (MPI initialised here if nobody has, and
// finalised when the object goes), else single_process_nodes(). Error when MPI cannot start.
std::unique_ptr<NodeExchange> open_node_exchange();

}  // namespace nsim::library
