// What collectives and point-to-point transfers compute, across the memories of several cores,
// built from the semantics contract's read_tile / write_tile / combine.
//
// Element order: an operand's elements are taken partition by partition, each partition in
// access-pattern order (a Tile's values). With n ranks (rank r = program core first_core + r):
//   all_reduce     every dst = src_0 op src_1 op ... op src_{n-1}
//   all_gather     every dst = src_0, src_1, ..., src_{n-1} one after another (dst has n x the elements)
//   reduce_scatter rank r's dst = the r-th of n equal parts of (src_0 op ... op src_{n-1})
//   send/recv      the receiver's dst = the sender's src, converted to dst's type
#pragma once

#include <vector>

#include "core/semantics/functional.h"
#include "isa/instruction.h"

namespace nsim::sim::core {

struct CollectiveRank {
    const isa::Instruction* instruction = nullptr;
    const MemorySpaces* spaces = nullptr;
};

// `ranks` in rank order; every instruction has the same opcode. Throws SemanticsError on operands
// that do not fit together.
void run_collective(const std::vector<CollectiveRank>& ranks);
void run_send_recv(const CollectiveRank& send, const CollectiveRank& recv);

}  // namespace nsim::sim::core
