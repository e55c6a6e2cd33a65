#include "core/instruction_text.h"

#include "isa/text_format.h"

namespace nsim::sim::core {

// isa/ has no public one-instruction disassembler yet, so this disassembles a program holding only
// that instruction (with the program's names) and keeps its last line.
std::string instruction_text(const isa::Container& program, const isa::InstructionStream& stream,
                             const isa::Instruction& instruction) {
    isa::Container single;
    single.generation = program.generation;
    single.cores_needed = program.cores_needed;
    single.semaphore_names = program.semaphore_names;
    single.tensors.reserve(program.tensors.size());
    for (const isa::TensorInfo& t : program.tensors) {
        isa::TensorInfo named = t;
        named.data.clear();
        single.tensors.push_back(std::move(named));
    }
    isa::InstructionStream only;
    only.core = stream.core;
    only.engine = stream.engine;
    only.queue = stream.queue;
    only.instructions.push_back(instruction);
    single.streams.push_back(std::move(only));
    std::string text = isa::disassemble(single);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    const size_t line = text.rfind('\n');
    return line == std::string::npos ? text : text.substr(line + 1);
}

}  // namespace nsim::sim::core
