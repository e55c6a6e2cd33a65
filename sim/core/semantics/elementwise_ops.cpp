// The element-wise opcodes: activation (scalar engine), tensor_tensor, tensor_scalar,
// tensor_partition_scalar, select, tensor_copy, and dma_copy (which moves elements the same way).
// Elements of operands correspond in access-pattern order; the validator has checked that they have
// the same partitions and free sizes, here only their counts must agree.
#include <string>

#include "core/semantics/element_ops.h"
#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

// dst = func(src * scale + bias[p]), fp32 throughout (hardware.md 3.1: scale*x+bias before the
// function, FP32 compute): the multiply and the add each round to fp32 (no bias: no add), the
// function is evaluated as element_ops.h says, and dst rounds to its dtype.
// With reduce_op != none, reduce_dst[p] = reduce(func(...)[p, :]) over the fp32 function values,
// before they are rounded to dst's dtype, folded left to right. NC-v2 hardware only adds; the
// simulator accepts max and min too. With reduce_op none, reduce_dst is not written.
void execute_Activation(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Activation;
    Tile values = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, values.values.size(), "one per source element");
    const uint32_t rows = values.partitions;
    const uint64_t cols = values.free;
    const bool has_bias = inst.ap(F::bias).present();
    const std::vector<float> bias = has_bias ? read_per_partition(inst, F::bias, rows, spaces) : std::vector<float>();
    const float scale = inst.f32(F::scale);
    with_activation(inst.activation(F::func), [&](auto func) {
        for (uint32_t p = 0; p < rows; ++p) {
            float* row = &values.values[p * cols];
            if (has_bias) {
                const float b = bias[p];
                for (uint64_t f = 0; f < cols; ++f) row[f] = activate<decltype(func)::value>(row[f] * scale + b);
            } else {
                for (uint64_t f = 0; f < cols; ++f) row[f] = activate<decltype(func)::value>(row[f] * scale);
            }
        }
    });
    const isa::ReduceOp reduce = inst.reduce(F::reduce_op);
    if (reduce != isa::ReduceOp::None) {
        if (!inst.ap(F::reduce_dst).present())
            fail_operand(inst, F::reduce_dst, "is none but reduce_op is " + std::string(isa::name_of(reduce)));
        require_elements(inst, F::reduce_dst, rows, "one per partition");
        Tile reduced = make_tile(rows, 1);
        with_reduce(reduce, [&](auto op) {
            for (uint32_t p = 0; p < rows; ++p) {
                const float* row = &values.values[p * cols];
                float acc = cols ? row[0] : 0.0f;
                for (uint64_t f = 1; f < cols; ++f) acc = reduce_step<decltype(op)::value>(acc, row[f]);
                reduced.values[p] = acc;
            }
        });
        write_operand(inst, F::reduce_dst, reduced, spaces);
    }
    write_operand(inst, F::dst, values, spaces);
}

// dst = src0 op src1, fp32.
void execute_TensorTensor(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::TensorTensor;
    Tile a = read_operand(inst, F::src0, spaces);
    const Tile b = read_operand(inst, F::src1, spaces);
    require_elements(inst, F::src1, a.values.size(), "as many as src0");
    require_elements(inst, F::dst, a.values.size(), "as many as src0");
    with_alu(inst.alu(F::op), [&](auto op) {
        for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = alu<decltype(op)::value>(a.values[i], b.values[i]);
    });
    write_operand(inst, F::dst, a, spaces);
}

namespace {
// x[p, :] = x[p, :] op right[p]. Chained operators run as one pass each: every operator rounds to
// fp32 on its own, so this equals applying them element by element, and keeps the instantiations
// at one per operator rather than one per pair.
void apply_per_row(isa::AluOp op, Tile& x, const std::vector<float>& right) {
    if (op == isa::AluOp::Bypass) return;
    with_alu(op, [&](auto o) {
        for (uint32_t p = 0; p < x.partitions; ++p) {
            float* row = &x.values[p * x.free];
            const float r = right[p];
            for (uint64_t f = 0; f < x.free; ++f) row[f] = alu<decltype(o)::value>(row[f], r);
        }
    });
}
}  // namespace

// dst = (src op0 imm0) op1 imm1; each operator rounds to fp32, bypass passes its left side through.
void execute_TensorScalar(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::TensorScalar;
    Tile x = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, x.values.size(), "one per source element");
    apply_per_row(inst.alu(F::op0), x, std::vector<float>(x.partitions, inst.f32(F::imm0)));
    apply_per_row(inst.alu(F::op1), x, std::vector<float>(x.partitions, inst.f32(F::imm1)));
    write_operand(inst, F::dst, x, spaces);
}

// dst = (src op0 scalar0[p]) op1 scalar1[p]. Without scalar1, op1 is skipped (NKI: operand1=None
// ignores op1).
void execute_TensorPartitionScalar(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::TensorPartitionScalar;
    Tile x = read_operand(inst, F::src, spaces);
    require_elements(inst, F::dst, x.values.size(), "one per source element");
    apply_per_row(inst.alu(F::op0), x, read_per_partition(inst, F::scalar0, x.partitions, spaces));
    if (inst.ap(F::scalar1).present())
        apply_per_row(inst.alu(F::op1), x, read_per_partition(inst, F::scalar1, x.partitions, spaces));
    write_operand(inst, F::dst, x, spaces);
}

// dst = predicate != 0 ? on_true : on_false (a NaN predicate counts as true: NaN != 0).
void execute_Select(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Select;
    const Tile predicate = read_operand(inst, F::predicate, spaces);
    Tile result = read_operand(inst, F::on_true, spaces);
    const Tile on_false = read_operand(inst, F::on_false, spaces);
    const size_t n = predicate.values.size();
    require_elements(inst, F::on_true, n, "as many as predicate");
    require_elements(inst, F::on_false, n, "as many as predicate");
    require_elements(inst, F::dst, n, "as many as predicate");
    for (size_t i = 0; i < n; ++i)
        if (predicate.values[i] == 0.0f) result.values[i] = on_false.values[i];
    write_operand(inst, F::dst, result, spaces);
}

namespace {
void copy_operand(const isa::Instruction& inst, size_t dst, size_t src, const MemorySpaces& spaces) {
    require_elements(inst, dst, element_count(inst.ap(src)), "as many as the source");
    copy_elements(inst.ap(dst), inst.ap(src), spaces);
}
}  // namespace

// dst = src; equal dtypes copy bit patterns, different ones convert (RNE, saturating for integers
// and fp8).
void execute_TensorCopy(const isa::Instruction& inst, const MemorySpaces& spaces) {
    copy_operand(inst, isa::fields::TensorCopy::dst, isa::fields::TensorCopy::src, spaces);
}

// A DMA within the core's spaces: the same element-for-element move as tensor_copy, between any of
// SBUF, PSUM, DRAM and HOST tensors.
void execute_DmaCopy(const isa::Instruction& inst, const MemorySpaces& spaces) {
    copy_operand(inst, isa::fields::DmaCopy::dst, isa::fields::DmaCopy::src, spaces);
}

}  // namespace nsim::sim::core
