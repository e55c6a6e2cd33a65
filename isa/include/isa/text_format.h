// The text form of a program (isa/FORMAT.md, "Assembly text"): assemble text into a Container,
// disassemble a Container into text that assembles back to the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "isa/container.h"
#include "isa/validator.h"

namespace nsim::isa {

struct SourcePosition {
    uint32_t line = 0;    // 1-based
    uint32_t column = 0;  // 1-based
};

// what() is one line: "FILE:LINE:COLUMN: error: MESSAGE".
class AssemblyError : public std::runtime_error {
public:
    AssemblyError(const std::string& file, SourcePosition at, const std::string& message);
    SourcePosition position;
    std::string message;
};

struct Assembly {
    std::string file;
    Container container;   // canonical: streams sorted, section numbers as the writer assigns them
    std::map<uint32_t, std::vector<SourcePosition>> instruction_positions;  // by section
    SourcePosition target_position;

    // A validator diagnostic as "FILE:LINE:COLUMN: error: MESSAGE" at the instruction it names.
    std::string locate(const Diagnostic&) const;
};

// Throws AssemblyError at the first problem.
Assembly assemble(std::string_view source, const std::string& file_name);
std::string disassemble(const Container&);
// One instruction of a stream of `program` as disassemble() writes its line (no newline), with the
// program's tensor and semaphore names; for reports and traces that print many instructions.
class InstructionPrinter {
public:
    explicit InstructionPrinter(const Container& program);  // kept by reference
    ~InstructionPrinter();
    std::string line(const InstructionStream& stream, const Instruction& instruction) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nsim::isa
