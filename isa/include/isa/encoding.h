// The binary form of one instruction (isa/FORMAT.md, "Instruction encoding"). The layout of each
// opcode's operands comes from the table; nothing here is opcode-specific.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "isa/instruction.h"

namespace nsim::isa {

constexpr size_t kInstructionHeaderBytes = 16;
constexpr size_t kAccessPatternBytes = 64;
constexpr size_t kScalarFieldBytes = 4;

// A malformed encoded instruction; what() says what is wrong, without position (the caller adds it).
class DecodeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

size_t encoded_size(const OpcodeInfo&);
void encode(const Instruction&, std::vector<uint8_t>& out);
// Decodes the instruction at bytes[0..available); returns its size in bytes.
size_t decode(const uint8_t* bytes, size_t available, Instruction& out);

}  // namespace nsim::isa
