// The instruction table (opcodes.def) as data: what each opcode is called, where it runs, what its
// operands are. Encoder, decoder, assembler, disassembler and validator all read this; none of them
// knows an opcode by name except where it checks opcode-specific rules (tile limits).
//
// The simulator adds semantics and cost by expanding the same table, e.g.
//   switch (inst.opcode) {
//   #define NSIM_OPCODE(id, mnemonic, engines, cost, fields) case Opcode::id: return execute_##id(inst);
//   #include "isa/opcodes.def"
//   #undef NSIM_OPCODE
//   }
// so that an opcode without an execute_ function is a compile error, not a silent gap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "isa/types.h"

namespace nsim::isa {

enum class FieldKind : uint8_t { AccessPattern, F32, I32, U32, Activation, Alu, Reduce, Accumulate, Semaphore };
enum class FieldAccess : uint8_t { None, Read, Write };

// Bit masks the table is written in; bit i of an engine mask is Engine(i), bit i of a space mask
// is MemorySpace(i + 1).
namespace table_names {
constexpr uint32_t engine_bit(Engine e) { return 1u << unsigned(e); }
constexpr uint32_t PE = engine_bit(Engine::Pe);
constexpr uint32_t ACT = engine_bit(Engine::Act);
constexpr uint32_t DVE = engine_bit(Engine::Dve);
constexpr uint32_t POOL = engine_bit(Engine::Pool);
constexpr uint32_t SP = engine_bit(Engine::Sp);
constexpr uint32_t DMA = engine_bit(Engine::Dma);
constexpr uint32_t ANY_ENGINE = PE | ACT | DVE | POOL | SP | DMA;
constexpr uint32_t space_bit(MemorySpace s) { return 1u << (unsigned(s) - 1); }
constexpr uint32_t SBUF = space_bit(MemorySpace::Sbuf);
constexpr uint32_t PSUM = space_bit(MemorySpace::Psum);
constexpr uint32_t DRAM = space_bit(MemorySpace::Dram);
constexpr uint32_t HOST = space_bit(MemorySpace::Host);
constexpr uint32_t ON_CHIP = SBUF | PSUM;
constexpr uint32_t ANY_SPACE = SBUF | PSUM | DRAM | HOST;
}  // namespace table_names

struct FieldSpec {
    FieldKind kind;
    std::string_view name;
    uint32_t spaces;      // access patterns: allowed memory spaces (table_names masks)
    FieldAccess access;
    bool optional;        // access patterns: "none" allowed
};

struct OpcodeInfo {
    Opcode opcode;
    std::string_view mnemonic;
    uint32_t engines;     // table_names engine mask
    CostClass cost;
    const FieldSpec* fields;
    size_t field_count;

    bool runs_on(Engine e) const { return (engines & table_names::engine_bit(e)) != 0; }
};

// nullptr when raw is not an opcode of the table.
const OpcodeInfo* find_opcode(uint16_t raw);
const OpcodeInfo* find_mnemonic(std::string_view mnemonic);
const OpcodeInfo& info(Opcode);
// Index of a field by name within an opcode, or field_count when it has none of that name.
size_t field_index(const OpcodeInfo&, std::string_view name);

// The largest number of fields any opcode has (sizes Instruction).
constexpr size_t max_field_count() {
    size_t most = 0;
#include "isa/field_macros.h"
#define NSIM_FIELD(kind, name, spaces, access, optional) +1
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) \
    {                                                     \
        const size_t count = 0 fields;                    \
        if (count > most) most = count;                   \
    }
#include "isa/opcodes.def"
#undef NSIM_OPCODE
#undef NSIM_FIELD
#include "isa/field_macros_end.h"
    return most;
}

// Field positions by name, per opcode: inst.ap(fields::Matmul::moving), inst.f32(fields::Activation::scale);
// fields::Id::field_count is the number of operands.
namespace fields {
#include "isa/field_macros.h"
#define NSIM_FIELD(kind, name, spaces, access, optional) name,
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) \
    namespace id {                                        \
    enum : size_t { fields field_count };                 \
    }
#include "isa/opcodes.def"
#undef NSIM_OPCODE
#undef NSIM_FIELD
#include "isa/field_macros_end.h"
}  // namespace fields

}  // namespace nsim::isa
