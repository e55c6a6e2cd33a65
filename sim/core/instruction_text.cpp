#include "core/instruction_text.h"

#include "isa/text_format.h"

namespace nsim::sim::core {

std::string instruction_text(const isa::Container& program, const isa::InstructionStream& stream,
                             const isa::Instruction& instruction) {
    return isa::InstructionPrinter(program).line(stream, instruction);
}

}  // namespace nsim::sim::core
