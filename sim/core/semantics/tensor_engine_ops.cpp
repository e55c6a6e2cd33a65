// matmul and transpose: what the PE array (and, for transpose, DVE) computes.
#include <string>
#include <vector>

#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"
#include "core/semantics/tile_gemm.h"

namespace nsim::sim::core {

// dst[m, n] (+)= sum_k stationary[k, m] * moving[k, n].
// Inputs enter as stored (already rounded to their dtype). Each product is an fp32 multiply and the
// column sum adds them in fp32 in ascending k, the order partitions flow down the array; the PSUM
// read-accumulate-write then adds that sum to the held value in fp32 (hardware.md 3.1: "PSUM
// accumulation always FP32"). For bf16/fp16/fp8/int8 inputs the products are exact in fp32, so only
// the additions round. dst is written in its own dtype (fp32 in PSUM; whatever a program asks
// otherwise, rounded RNE). The column sums come from a BLAS (core/semantics/tile_gemm.h: why that
// keeps them).
void execute_Matmul(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Matmul;
    const Tile stationary = read_operand(inst, F::stationary, spaces);
    const Tile moving = read_operand(inst, F::moving, spaces);
    const uint32_t k_count = stationary.partitions;
    const uint64_t m_count = stationary.free, n_count = moving.free;
    if (moving.partitions != k_count)
        fail_operand(inst, F::moving, "has " + std::to_string(moving.partitions) + " partitions, stationary " +
                                          std::to_string(k_count));
    const isa::AccessPattern& dst = inst.ap(F::dst);
    if (dst.partition_count != m_count || dst.free_elements() != n_count)
        fail_operand(inst, F::dst, "is " + std::to_string(dst.partition_count) + "x" +
                                       std::to_string(dst.free_elements()) + ", the product is " +
                                       std::to_string(m_count) + "x" + std::to_string(n_count));

    Tile result = make_tile(uint32_t(m_count), n_count);
    const auto narrow = [&](size_t field) {
        const isa::DType t = inst.ap(field).dtype;
        return t != isa::DType::Fp32 && t != isa::DType::Int32;
    };
    tile_gemm(stationary.values.data(), moving.values.data(), k_count, m_count, n_count, result.values.data(),
              narrow(F::stationary) && narrow(F::moving));
    if (inst.accumulate(F::acc) == isa::AccumulateMode::Accumulate) {
        const Tile held = read_operand(inst, F::dst, spaces);
        for (size_t i = 0; i < result.values.size(); ++i) result.values[i] = held.values[i] + result.values[i];
    } else if (inst.accumulate(F::acc) != isa::AccumulateMode::Overwrite) {
        throw SemanticsError("unknown accumulate mode " + std::to_string(inst.u32(F::acc)));
    }
    write_operand(inst, F::dst, result, spaces);
}

// dst[f, p] = src[p, f], element for element: equal dtypes move bit patterns (the NC-v3 "bit-exact
// NaN/Inf" transpose; exact for int32 too), different dtypes convert (bf16 in, fp32 PSUM out).
// The instruction does not say which engine runs it; both compute the full 2-D transpose here. For
// NKI's vector-engine tiles (at most 32x32) that is what DVE produces.
void execute_Transpose(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::Transpose;
    const isa::AccessPattern &src = inst.ap(F::src), &dst = inst.ap(F::dst);
    const uint64_t rows = src.partition_count, cols = src.free_elements();
    if (dst.partition_count != cols || dst.free_elements() != rows)
        fail_operand(inst, F::dst, "is " + std::to_string(dst.partition_count) + "x" +
                                       std::to_string(dst.free_elements()) + ", the transpose of the " +
                                       std::to_string(rows) + "x" + std::to_string(cols) + " source is " +
                                       std::to_string(cols) + "x" + std::to_string(rows));
    if (src.dtype == dst.dtype) {
        OperandBytes in;
        try {
            in = gather_bytes(src, spaces);
        } catch (const SemanticsError& e) {
            fail_operand(inst, F::src, e.what());
        }
        const uint32_t size = isa::size_in_bytes(src.dtype);
        OperandBytes out(in.size(), boost::container::default_init);
        for (uint64_t p = 0; p < rows; ++p)
            for (uint64_t f = 0; f < cols; ++f)
                for (uint32_t b = 0; b < size; ++b) out[(f * rows + p) * size + b] = in[(p * cols + f) * size + b];
        try {
            scatter_bytes(dst, out.data(), spaces);
        } catch (const SemanticsError& e) {
            fail_operand(inst, F::dst, e.what());
        }
        return;
    }
    const Tile in = read_operand(inst, F::src, spaces);
    Tile out = make_tile(uint32_t(cols), rows);
    for (uint64_t p = 0; p < rows; ++p)
        for (uint64_t f = 0; f < cols; ++f) out.values[f * rows + p] = in.values[p * cols + f];
    write_operand(inst, F::dst, out, spaces);
}

}  // namespace nsim::sim::core
