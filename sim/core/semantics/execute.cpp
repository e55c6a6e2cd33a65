// execute(): dispatch over the opcode table, operand helpers, and the opcodes that compute nothing
// here (synchronisation) or need more than one core (collectives).
#include <stdexcept>
#include <string>

#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

namespace {
// Every operand's space, dtype and size are sane before any opcode allocates for it.
void check_operands(const isa::Instruction& instruction) {
    const isa::OpcodeInfo& info = isa::info(instruction.opcode);
    for (size_t f = 0; f < info.field_count; ++f) {
        if (info.fields[f].kind != isa::FieldKind::AccessPattern || !instruction.ap(f).present()) continue;
        try {
            element_count(instruction.ap(f));
        } catch (const SemanticsError& e) {
            fail_operand(instruction, f, e.what());
        }
    }
}
}  // namespace

void execute(const isa::Instruction& instruction, const MemorySpaces& spaces) {
    const isa::OpcodeInfo* info = isa::find_opcode(uint16_t(instruction.opcode));
    if (!info) throw SemanticsError("invalid opcode " + std::to_string(unsigned(instruction.opcode)));
    try {
        check_operands(instruction);
        switch (instruction.opcode) {
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) \
    case isa::Opcode::id: return execute_##id(instruction, spaces);
#include "isa/opcodes.def"
#undef NSIM_OPCODE
            case isa::Opcode::Invalid: break;
        }
    } catch (const SemanticsError& e) {
        throw SemanticsError(std::string(info->mnemonic) + ": " + e.what());
    } catch (const std::invalid_argument& e) {  // an enumeration value outside its table
        throw SemanticsError(std::string(info->mnemonic) + ": " + e.what());
    }
}

bool is_executed_by_semantics(isa::Opcode opcode) {
    switch (opcode) {
        case isa::Opcode::Invalid:
        case isa::Opcode::AllReduce:
        case isa::Opcode::AllGather:
        case isa::Opcode::ReduceScatter:
        case isa::Opcode::Send:
        case isa::Opcode::Recv:
        case isa::Opcode::Nop:
        case isa::Opcode::Mark:
        case isa::Opcode::SemSet:
        case isa::Opcode::Barrier: return false;
        default: return true;
    }
}

namespace {
[[noreturn]] void needs_engines(const isa::Instruction& instruction) {
    throw std::logic_error(std::string(isa::info(instruction.opcode).mnemonic) +
                           " spans cores: the engines carry it out, not semantics::execute");
}
}  // namespace

void execute_Nop(const isa::Instruction&, const MemorySpaces&) {}
void execute_Mark(const isa::Instruction&, const MemorySpaces&) {}
void execute_SemSet(const isa::Instruction&, const MemorySpaces&) {}
void execute_Barrier(const isa::Instruction&, const MemorySpaces&) {}
void execute_AllReduce(const isa::Instruction& i, const MemorySpaces&) { needs_engines(i); }
void execute_AllGather(const isa::Instruction& i, const MemorySpaces&) { needs_engines(i); }
void execute_ReduceScatter(const isa::Instruction& i, const MemorySpaces&) { needs_engines(i); }
void execute_Send(const isa::Instruction& i, const MemorySpaces&) { needs_engines(i); }
void execute_Recv(const isa::Instruction& i, const MemorySpaces&) { needs_engines(i); }

// ---- operand helpers ----------------------------------------------------------------------------

[[noreturn]] void fail_operand(const isa::Instruction& instruction, size_t field, const std::string& message) {
    throw SemanticsError("operand '" + std::string(isa::info(instruction.opcode).fields[field].name) + "': " + message);
}

Tile read_operand(const isa::Instruction& instruction, size_t field, const MemorySpaces& spaces) {
    try {
        return read_tile(instruction.ap(field), spaces);
    } catch (const SemanticsError& e) {
        fail_operand(instruction, field, e.what());
    }
}

void write_operand(const isa::Instruction& instruction, size_t field, const Tile& tile, const MemorySpaces& spaces) {
    try {
        write_tile(instruction.ap(field), tile, spaces);
    } catch (const SemanticsError& e) {
        fail_operand(instruction, field, e.what());
    }
}

void require_elements(const isa::Instruction& instruction, size_t field, uint64_t count, const std::string& why) {
    const uint64_t has = element_count(instruction.ap(field));
    if (has != count)
        fail_operand(instruction, field, "has " + std::to_string(has) + " elements, needs " + std::to_string(count) +
                                             " (" + why + ")");
}

std::vector<float> read_per_partition(const isa::Instruction& instruction, size_t field, uint32_t rows,
                                      const MemorySpaces& spaces) {
    const isa::AccessPattern& ap = instruction.ap(field);
    if (ap.partition_count != rows || ap.free_elements() != 1)
        fail_operand(instruction, field, "is " + std::to_string(ap.partition_count) + "x" +
                                             std::to_string(ap.free_elements()) + ", needs one element on each of " +
                                             std::to_string(rows) + " partitions");
    return read_operand(instruction, field, spaces).values;
}

Tile make_tile(uint32_t partitions, uint64_t free) {
    Tile t;
    t.partitions = partitions;
    t.free = free;
    t.values.assign(size_t(partitions) * free, 0.0f);
    return t;
}

}  // namespace nsim::sim::core
