// Internal to sim/core/semantics: one execute_<Opcode> per line of opcodes.def (an opcode without
// one fails to link), and the operand helpers they share.
#pragma once

#include <string>
#include <vector>

#include "core/semantics/functional.h"

namespace nsim::sim::core {

#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) \
    void execute_##id(const isa::Instruction& instruction, const MemorySpaces& spaces);
#include "isa/opcodes.def"
#undef NSIM_OPCODE

// Operand access by field index; errors name the operand ("operand 'moving': ...").
Tile read_operand(const isa::Instruction& instruction, size_t field, const MemorySpaces& spaces);
void write_operand(const isa::Instruction& instruction, size_t field, const Tile& tile, const MemorySpaces& spaces);
// One value per row of a [rows, 1] operand (activation bias, per-partition scalars).
std::vector<float> read_per_partition(const isa::Instruction& instruction, size_t field, uint32_t rows,
                                      const MemorySpaces& spaces);
// Throws SemanticsError unless the operand holds exactly `count` elements.
void require_elements(const isa::Instruction& instruction, size_t field, uint64_t count, const std::string& why);
[[noreturn]] void fail_operand(const isa::Instruction& instruction, size_t field, const std::string& message);

// A tile of the given shape with every value zero.
Tile make_tile(uint32_t partitions, uint64_t free);

}  // namespace nsim::sim::core
