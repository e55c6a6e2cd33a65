// The engines' instruction fetch. The runtime's load writes each instruction stream, encoded
// (isa/FORMAT.md, "Instruction encoding"), into the device memory next to the core that runs it and
// records where in ProgramPlacement::code; an execution decodes the streams from there, so what the
// engines run is what device memory holds, as on the real machine. Fetching costs no simulated time
// (the engines' instruction prefetch runs ahead of execution). It costs host time: BERT-large on
// inf1.2xlarge (4 cores, 395,376 instructions, 66 MB of code) spends 0.30 s and 226 MB decoding per
// execution (`neuron-sim --instance inf1.2xlarge run build/bert.bin`: 1.37 s -> 1.67 s, 2026-11-25).
#pragma once

#include <vector>

#include "isa/container.h"
#include "program_placement.h"

namespace nsim::sim::core {

// The program's streams, each with its instructions decoded from its code in device memory; a stream
// the placement has no code for keeps the program's instructions (`neuron-sim run` of a bare program
// places no code). Code that no longer decodes, or that differs from the loaded program and breaks
// the generation's limits (something overwrote it), is a RunError naming the stream and the address.
std::vector<isa::InstructionStream> fetch_streams(const isa::Container& program, const ProgramPlacement& placement,
                                                  Platform& platform);

}  // namespace nsim::sim::core
