// The enumerations of the instruction set, each generated from its .def table, and their text names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nsim::isa {

enum class Engine : uint8_t {
#define NSIM_ENGINE(id, name, description) id,
#include "isa/engines.def"
#undef NSIM_ENGINE
};

// 0 is reserved for "no type" so that an all-zero operand means "absent".
enum class DType : uint8_t {
    None = 0,
#define NSIM_DTYPE(id, name, size, is_float) id,
#include "isa/dtypes.def"
#undef NSIM_DTYPE
};

enum class MemorySpace : uint8_t {
    None = 0,
#define NSIM_SPACE(id, name, partitioned) id,
#include "isa/memory_spaces.def"
#undef NSIM_SPACE
};

enum class ActivationFunction : uint8_t {
#define NSIM_ACTIVATION(id, name) id,
#include "isa/activation_functions.def"
#undef NSIM_ACTIVATION
};

enum class AluOp : uint8_t {
#define NSIM_ALU_OP(id, name) id,
#include "isa/alu_ops.def"
#undef NSIM_ALU_OP
};

enum class ReduceOp : uint8_t {
#define NSIM_REDUCE_OP(id, name) id,
#include "isa/reduce_ops.def"
#undef NSIM_REDUCE_OP
};

enum class AccumulateMode : uint8_t {
#define NSIM_ACCUMULATE(id, name) id,
#include "isa/accumulate_modes.def"
#undef NSIM_ACCUMULATE
};

enum class CostClass : uint8_t {
#define NSIM_COST_CLASS(id, formula) id,
#include "isa/cost_classes.def"
#undef NSIM_COST_CLASS
};

// Opcode numbers start at 1 so that a zeroed instruction is recognisably invalid.
enum class Opcode : uint16_t {
    Invalid = 0,
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) id,
#include "isa/opcodes.def"
#undef NSIM_OPCODE
};

// Number of values of each table (excluding the None/Invalid placeholders).
constexpr size_t engine_count() {
    return 0
#define NSIM_ENGINE(id, name, description) +1
#include "isa/engines.def"
#undef NSIM_ENGINE
        ;
}
constexpr size_t opcode_count() {
    return 0
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) +1
#include "isa/opcodes.def"
#undef NSIM_OPCODE
        ;
}

std::string_view name_of(Engine);
std::string_view name_of(DType);
std::string_view name_of(MemorySpace);
std::string_view name_of(ActivationFunction);
std::string_view name_of(AluOp);
std::string_view name_of(ReduceOp);
std::string_view name_of(AccumulateMode);
std::string_view name_of(CostClass);

// Parsing the text names back; nullopt when the name is not in the table.
std::optional<Engine> engine_from_name(std::string_view);
std::optional<DType> dtype_from_name(std::string_view);
std::optional<MemorySpace> space_from_name(std::string_view);
std::optional<ActivationFunction> activation_from_name(std::string_view);
std::optional<AluOp> alu_op_from_name(std::string_view);
std::optional<ReduceOp> reduce_op_from_name(std::string_view);
std::optional<AccumulateMode> accumulate_from_name(std::string_view);

// Whether a raw value read from a file is one of the table's values.
bool is_valid_engine(uint32_t raw);
bool is_valid_dtype(uint32_t raw);        // excludes None
bool is_valid_space(uint32_t raw);        // excludes None
bool is_valid_activation(uint32_t raw);
bool is_valid_alu_op(uint32_t raw);
bool is_valid_reduce_op(uint32_t raw);
bool is_valid_accumulate(uint32_t raw);

uint32_t size_in_bytes(DType);
bool is_float(DType);
bool is_partitioned(MemorySpace);

}  // namespace nsim::isa
