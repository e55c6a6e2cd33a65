// The engines' instruction fetch. The runtime's load writes each instruction stream, encoded
// (isa/FORMAT.md, "Instruction encoding"), into the device memory next to the core that runs it and
// records where in ProgramPlacement::code; an execution reads the streams back from there, so what
// the engines run is what device memory holds, as on the real machine. Fetching costs no simulated
// time (the engines' instruction prefetch runs ahead of execution). In host time it costs a copy
// and a compare: when device memory holds the bytes the load wrote, the engines run the loaded
// (already decoded, shared) instructions; only bytes that something overwrote are decoded again.
// (Before, every execution decoded all the code: BERT-large on inf1.2xlarge, 395,376 instructions,
// 66 MB of code, 0.30 s and 226 MB per execution.)
#pragma once

#include <vector>

#include "isa/container.h"
#include "program_placement.h"

namespace nsim::sim::core {

// The program's streams, each with its instructions decoded from its code in device memory; a stream
// the placement has no code for keeps the program's instructions (`neuron-sim run` of a bare program
// places no code). Code that no longer decodes, or that differs from the loaded program and breaks
// the generation's limits (something overwrote it), is a RunError naming the stream and the address.
// Only the streams of graph `graph` (isa::Container::graphs) are fetched: the others keep the program's.
std::vector<isa::InstructionStream> fetch_streams(const isa::Container& program, const ProgramPlacement& placement,
                                                  Platform& platform, uint32_t graph = 0);

}  // namespace nsim::sim::core
