// One instruction as the assembler writes it ("pe matmul dst=..., wait=mm_done>=3"), for reports.
#pragma once

#include <string>

#include "isa/container.h"

namespace nsim::sim::core {

// `stream` is the queue the instruction belongs to; tensor and semaphore names come from `program`.
std::string instruction_text(const isa::Container& program, const isa::InstructionStream& stream,
                             const isa::Instruction& instruction);

}  // namespace nsim::sim::core
