#include "isa/types.h"

#include <array>

namespace nsim::isa {
namespace {

// Text names in table order; the enum value (minus the placeholder offset) indexes them.
constexpr std::string_view engine_names[] = {
#define NSIM_ENGINE(id, name, description) name,
#include "isa/engines.def"
#undef NSIM_ENGINE
};
constexpr std::string_view dtype_names[] = {
#define NSIM_DTYPE(id, name, size, is_float) name,
#include "isa/dtypes.def"
#undef NSIM_DTYPE
};
constexpr uint32_t dtype_sizes[] = {
#define NSIM_DTYPE(id, name, size, is_float) size,
#include "isa/dtypes.def"
#undef NSIM_DTYPE
};
constexpr bool dtype_is_float[] = {
#define NSIM_DTYPE(id, name, size, is_float) is_float,
#include "isa/dtypes.def"
#undef NSIM_DTYPE
};
constexpr std::string_view space_names[] = {
#define NSIM_SPACE(id, name, partitioned) name,
#include "isa/memory_spaces.def"
#undef NSIM_SPACE
};
constexpr bool space_partitioned[] = {
#define NSIM_SPACE(id, name, partitioned) partitioned,
#include "isa/memory_spaces.def"
#undef NSIM_SPACE
};
constexpr std::string_view activation_names[] = {
#define NSIM_ACTIVATION(id, name) name,
#include "isa/activation_functions.def"
#undef NSIM_ACTIVATION
};
constexpr std::string_view alu_names[] = {
#define NSIM_ALU_OP(id, name) name,
#include "isa/alu_ops.def"
#undef NSIM_ALU_OP
};
constexpr std::string_view reduce_names[] = {
#define NSIM_REDUCE_OP(id, name) name,
#include "isa/reduce_ops.def"
#undef NSIM_REDUCE_OP
};
constexpr std::string_view accumulate_names[] = {
#define NSIM_ACCUMULATE(id, name) name,
#include "isa/accumulate_modes.def"
#undef NSIM_ACCUMULATE
};
constexpr std::string_view cost_class_names[] = {
#define NSIM_COST_CLASS(id, formula) #id,
#include "isa/cost_classes.def"
#undef NSIM_COST_CLASS
};

template <size_t N>
std::optional<size_t> index_of(const std::string_view (&names)[N], std::string_view name) {
    for (size_t i = 0; i < N; ++i)
        if (names[i] == name) return i;
    return std::nullopt;
}

template <class E, size_t N>
std::optional<E> lookup(const std::string_view (&names)[N], std::string_view name, size_t first_value) {
    if (auto i = index_of(names, name)) return static_cast<E>(*i + first_value);
    return std::nullopt;
}

template <size_t N>
std::string_view name_at(const std::string_view (&names)[N], size_t index) {
    return index < N ? names[index] : std::string_view("?");
}

template <class T, size_t N>
constexpr size_t count_of(const T (&)[N]) { return N; }

}  // namespace

std::string_view name_of(Engine e) { return name_at(engine_names, size_t(e)); }
std::string_view name_of(DType t) { return t == DType::None ? "none" : name_at(dtype_names, size_t(t) - 1); }
std::string_view name_of(MemorySpace s) { return s == MemorySpace::None ? "none" : name_at(space_names, size_t(s) - 1); }
std::string_view name_of(ActivationFunction f) { return name_at(activation_names, size_t(f)); }
std::string_view name_of(AluOp o) { return name_at(alu_names, size_t(o)); }
std::string_view name_of(ReduceOp o) { return name_at(reduce_names, size_t(o)); }
std::string_view name_of(AccumulateMode m) { return name_at(accumulate_names, size_t(m)); }
std::string_view name_of(CostClass c) { return name_at(cost_class_names, size_t(c)); }

std::optional<Engine> engine_from_name(std::string_view n) { return lookup<Engine>(engine_names, n, 0); }
std::optional<DType> dtype_from_name(std::string_view n) { return lookup<DType>(dtype_names, n, 1); }
std::optional<MemorySpace> space_from_name(std::string_view n) { return lookup<MemorySpace>(space_names, n, 1); }
std::optional<ActivationFunction> activation_from_name(std::string_view n) {
    return lookup<ActivationFunction>(activation_names, n, 0);
}
std::optional<AluOp> alu_op_from_name(std::string_view n) { return lookup<AluOp>(alu_names, n, 0); }
std::optional<ReduceOp> reduce_op_from_name(std::string_view n) { return lookup<ReduceOp>(reduce_names, n, 0); }
std::optional<AccumulateMode> accumulate_from_name(std::string_view n) {
    return lookup<AccumulateMode>(accumulate_names, n, 0);
}

bool is_valid_engine(uint32_t raw) { return raw < count_of(engine_names); }
bool is_valid_dtype(uint32_t raw) { return raw >= 1 && raw <= count_of(dtype_names); }
bool is_valid_space(uint32_t raw) { return raw >= 1 && raw <= count_of(space_names); }
bool is_valid_activation(uint32_t raw) { return raw < count_of(activation_names); }
bool is_valid_alu_op(uint32_t raw) { return raw < count_of(alu_names); }
bool is_valid_reduce_op(uint32_t raw) { return raw < count_of(reduce_names); }
bool is_valid_accumulate(uint32_t raw) { return raw < count_of(accumulate_names); }

uint32_t size_in_bytes(DType t) { return t == DType::None ? 0 : dtype_sizes[size_t(t) - 1]; }
bool is_float(DType t) { return t != DType::None && dtype_is_float[size_t(t) - 1]; }
bool is_partitioned(MemorySpace s) { return s != MemorySpace::None && space_partitioned[size_t(s) - 1]; }

}  // namespace nsim::isa
