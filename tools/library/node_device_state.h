// The device-side state of one simulated node while the same process simulates another: SystemC
// elaborates one instance per process (library/instance.h), so a process that simulates several
// nodes of a functional multi-node run runs them all on its one loaded program, one after another,
// and swaps each node's state in before it runs: every copy of the program's device region (its
// parameters, gradient sums, optimizer states, dropout generator) and the stochastic-rounding
// streams of the program's cores (platform/rounding_stream.h). With its state in, a node runs
// exactly as it does alone in a process of its own (on the same cores, at the same addresses).
// The copies go through the simulator's memories directly, not the simulated driver: they are the
// simulator's bookkeeping, not something the simulated host does, and take no simulated time.
// Also the host's view of one program core's copy of the region, the same way: how the inter-node
// phase of a training step reads and writes each rank's gradient shard.
#pragma once

#include <cstdint>
#include <vector>

#include "library/program_session.h"
#include "platform/rounding_stream.h"

namespace nsim::library {

// `size` bytes at `offset` in the device region of program core `core` (Scratch tensors: a program
// with a region per core has each core's own).
std::vector<uint8_t> read_core_region(Session& session, uint32_t core, uint64_t offset, uint64_t size);
void write_core_region(Session& session, uint32_t core, uint64_t offset, const std::vector<uint8_t>& bytes);

class NodeDeviceStates {
public:
    // `nodes` nodes on `session`'s loaded program, each starting from its state now (the load's);
    // node 0's is the one in.
    NodeDeviceStates(Session& session, uint32_t nodes);
    // Puts node `node`'s state in (the state in before is kept for its node).
    void activate(uint32_t node);

private:
    struct State {
        std::vector<std::vector<uint8_t>> regions;  // by the placement's device regions
        std::vector<sim::RoundingStream> rounding;  // by program core
    };
    State capture() const;
    void restore(const State& state);

    Session& session_;
    std::vector<State> saved_;   // by node; the active node's is stale
    uint32_t active_ = 0;
};

}  // namespace nsim::library
