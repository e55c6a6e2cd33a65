// Opcodes whose values come from the instruction rather than from memory: memset, iota, and
// affine_select (masks from partition and free indices).
// p is the row index within the operand (0 = its first partition), i the linear free index in
// access-pattern order (NKI's iota/affine_select index the tile, not the SBUF).
#include <string>
#include <vector>

#include "core/semantics/dtype_conversion.h"
#include "core/semantics/element_ops.h"
#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

// Every element = value rounded to dst's dtype (RNE; saturating for integers and fp8).
void execute_Memset(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Memset;
    const isa::AccessPattern& dst = inst.ap(F::dst);
    Tile t = make_tile(dst.partition_count, dst.free_elements());
    std::fill(t.values.begin(), t.values.end(), inst.f32(F::value));  // sizes checked by execute()
    write_operand(inst, F::dst, t, spaces);
}

// dst[p, i] = base + partition_step*p + free_step*i, computed exactly in 64-bit integers and stored
// exactly in int32 (clamped to its range), otherwise converted like any other value.
void execute_Iota(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Iota;
    const isa::AccessPattern& dst = inst.ap(F::dst);
    const int64_t base = inst.i32(F::base), partition_step = inst.i32(F::partition_step),
                  free_step = inst.i32(F::free_step);
    const uint32_t size = isa::size_in_bytes(dst.dtype);
    const uint64_t cols = dst.free_elements();
    std::vector<uint8_t> bytes(element_count(dst) * size);
    for (uint64_t p = 0; p < dst.partition_count; ++p)
        for (uint64_t i = 0; i < cols; ++i)
            dtype::encode_integer(dst.dtype, base + partition_step * int64_t(p) + free_step * int64_t(i),
                                  &bytes[(p * cols + i) * size]);
    try {
        scatter_bytes(dst, bytes.data(), spaces);
    } catch (const SemanticsError& e) {
        fail_operand(inst, F::dst, e.what());
    }
}

// dst = (base + partition_step*p + free_step*i) cmp 0 ? src : fill. The affine value is an exact
// 64-bit integer; comparisons compare it exactly with 0, any other operator is applied in fp32 as
// `value cmp 0.0` and its result counts as true when != 0.
void execute_AffineSelect(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::AffineSelect;
    Tile t = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, t.values.size(), "one per source element");
    const int64_t base = inst.i32(F::base), partition_step = inst.i32(F::partition_step),
                  free_step = inst.i32(F::free_step);
    const float fill = inst.f32(F::fill);
    with_alu(inst.alu(F::cmp), [&](auto cmp) {
        constexpr isa::AluOp op = decltype(cmp)::value;
        auto holds = [](int64_t v) {
            using isa::AluOp;
            if constexpr (op == AluOp::IsEqual) return v == 0;
            else if constexpr (op == AluOp::NotEqual) return v != 0;
            else if constexpr (op == AluOp::IsGt) return v > 0;
            else if constexpr (op == AluOp::IsGe) return v >= 0;
            else if constexpr (op == AluOp::IsLt) return v < 0;
            else if constexpr (op == AluOp::IsLe) return v <= 0;
            else return alu<op>(float(v), 0.0f) != 0.0f;
        };
        for (uint32_t p = 0; p < t.partitions; ++p)
            for (uint64_t i = 0; i < t.free; ++i)
                if (!holds(base + partition_step * int64_t(p) + free_step * int64_t(i)))
                    t.values[p * t.free + i] = fill;
    });
    write_operand(inst, F::dst, t, spaces);
}

}  // namespace nsim::sim::core
