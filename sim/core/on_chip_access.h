// What an instruction does to the on-chip memories, as the engines model needs it for two hazards:
// an instruction that reads what the previous instruction of its engine wrote waits until those
// writes are visible, and engines that share one SBUF or PSUM port take turns on it
// (configs/chips/nc-v2.yaml, "Engine cost model"). Operands are compared as bounding boxes -
// partitions x the byte span the free dimensions reach - so strided operands that interleave count
// as overlapping: a superset, never a miss.
#pragma once

#include "isa/instruction.h"

namespace nsim::sim::core {

// Whether any operand of `inst` (read or written) lies in `space` (SBUF or PSUM).
bool touches(const isa::Instruction& inst, isa::MemorySpace space);

// Whether an on-chip operand `reader` reads may hold bytes an on-chip operand `writer` writes.
bool reads_what_was_written(const isa::Instruction& reader, const isa::Instruction& writer);

}  // namespace nsim::sim::core
