// Which program cores a collective runs over, and the ring its data travels: ranks ordered so that
// each hands its share to a neighbour - the other core of its device, or a core of a device it has a
// NeuronLink to - wherever the devices' links allow such a cycle (a 4x4 torus does, for every rank
// set the trn1 runtime accepts).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "isa/instruction.h"

namespace nsim::sim::core {

struct CollectiveGroup {
    uint32_t first = 0, count = 0;  // program cores first .. first + count - 1
};

// The group of an all_reduce, all_gather, reduce_scatter or barrier; {0, 0} for any other instruction.
CollectiveGroup collective_group(const isa::Instruction& instruction);
bool is_collective(const isa::Instruction& instruction);   // all_reduce, all_gather, reduce_scatter

// The ring: position -> rank (an index into `device_of_rank`, the device each rank's core is on).
// A device's ranks are consecutive; the devices follow a Hamiltonian cycle of `linked` (a depth-first
// search from the first rank's device, neighbours in ascending order, so the same ranks always give
// the same ring). Where the devices have no such cycle, they follow in rank order (the hops without
// a link then go through the host).
std::vector<uint32_t> ring_order(const std::vector<uint32_t>& device_of_rank,
                                 const std::function<bool(uint32_t, uint32_t)>& linked);

}  // namespace nsim::sim::core
