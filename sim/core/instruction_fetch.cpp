#include "instruction_fetch.h"

#include <fmt/format.h>

#include "isa/encoding.h"
#include "validation/generation_limits.h"

namespace nsim::sim::core {
namespace {

// The stream as device memory holds it: the loaded instructions themselves when the bytes are the
// ones the load wrote (nothing decoded again), else what the bytes there decode to.
isa::InstructionList fetch_code(const isa::InstructionStream& loaded, const StreamCode& code, Platform& platform) {
    const SparseMemory& memory = channel_storage(platform, code.device, code.channel);
    const std::vector<uint8_t>& written = loaded.instructions.code();
    if (written.size() == code.bytes && memory.holds(code.offset, written.data(), written.size()))
        return loaded.instructions;
    std::vector<uint8_t> bytes(code.bytes);
    memory.read(code.offset, bytes.data(), bytes.size());
    std::vector<isa::Instruction> instructions;
    for (size_t at = 0; at < bytes.size();) {
        isa::Instruction instruction;
        try {
            at += isa::decode(bytes.data() + at, bytes.size() - at, instruction);
        } catch (const isa::DecodeError& e) {
            throw RunError(fmt::format("{}: instruction {} in device memory (device {} channel {} offset {:#x}) does not decode: {}",
                                       isa::describe(loaded), instructions.size(), code.device, code.channel,
                                       code.offset + at, e.what()));
        }
        instructions.push_back(instruction);
    }
    return isa::InstructionList(std::move(instructions), std::move(bytes));
}

// The program with `streams` in place of its own, validated as the runtime's load validates a program.
void validate_fetched(const isa::Container& program, const std::vector<isa::InstructionStream>& streams,
                      const config::ChipSpec& chip) {
    isa::Container fetched;
    fetched.generation = program.generation;
    fetched.cores_needed = program.cores_needed;
    fetched.semaphore_names = program.semaphore_names;
    for (const isa::TensorInfo& t : program.tensors) {
        isa::TensorInfo shape = t;
        shape.data.clear();  // the validator reads shapes and roles, not contents
        fetched.tensors.push_back(std::move(shape));
    }
    fetched.streams = streams;
    const auto problems = isa::validate(fetched, limits_of_chip(chip));
    if (!problems.empty())
        throw RunError(fmt::format("the code in device memory differs from the loaded program and is invalid: {}",
                                   problems.front().text()));
}

}  // namespace

std::vector<isa::InstructionStream> fetch_streams(const isa::Container& program, const ProgramPlacement& placement,
                                                  Platform& platform, uint32_t graph) {
    std::vector<const StreamCode*> code_of(program.streams.size(), nullptr);
    for (const StreamCode& code : placement.code) code_of.at(code.stream) = &code;
    std::vector<isa::InstructionStream> streams;
    streams.reserve(program.streams.size());
    bool differs = false;
    for (size_t i = 0; i < program.streams.size(); ++i) {
        const isa::InstructionStream& loaded = program.streams[i];
        if (!code_of[i] || loaded.graph != graph) {
            streams.push_back(loaded);
            continue;
        }
        isa::InstructionStream stream{loaded.core, loaded.engine, loaded.queue, {}, loaded.section, loaded.graph};
        stream.instructions = fetch_code(loaded, *code_of[i], platform);
        differs = differs || stream.instructions != loaded.instructions;
        streams.push_back(std::move(stream));
    }
    if (differs) validate_fetched(program, streams, platform.spec().chip);
    return streams;
}

}  // namespace nsim::sim::core
