// matmul and transpose: what the PE array (and, for transpose, DVE) computes.
#include <string>
#include <vector>

#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {

// dst[m, n] (+)= sum_k stationary[k, m] * moving[k, n].
// Inputs enter as stored (already rounded to their dtype). Each product is an fp32 multiply and the
// column sum adds them in fp32 in ascending k, the order partitions flow down the array; the PSUM
// read-accumulate-write then adds that sum to the held value in fp32 (hardware.md 3.1: "PSUM
// accumulation always FP32"). For bf16/fp16/fp8/int8 inputs the products are exact in fp32, so only
// the additions round. dst is written in its own dtype (fp32 in PSUM; whatever a program asks
// otherwise, rounded RNE).
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

    // Four k at a time per pass over the row (fewer loads and stores of the partial sums); each
    // element still adds its products one by one in ascending k.
    Tile result = make_tile(uint32_t(m_count), n_count);
    const float* st = stationary.values.data();
    const float* mv = moving.values.data();
    for (uint64_t m = 0; m < m_count; ++m) {
        float* row = &result.values[m * n_count];
        uint32_t k = 0;
        for (; k + 4 <= k_count; k += 4) {
            const float s0 = st[k * m_count + m], s1 = st[(k + 1) * m_count + m];
            const float s2 = st[(k + 2) * m_count + m], s3 = st[(k + 3) * m_count + m];
            const float *v0 = mv + k * n_count, *v1 = v0 + n_count, *v2 = v1 + n_count, *v3 = v2 + n_count;
            for (uint64_t n = 0; n < n_count; ++n) {
                float sum = row[n];
                sum += s0 * v0[n];
                sum += s1 * v1[n];
                sum += s2 * v2[n];
                sum += s3 * v3[n];
                row[n] = sum;
            }
        }
        for (; k < k_count; ++k) {
            const float s = st[k * m_count + m];
            const float* v = mv + k * n_count;
            for (uint64_t n = 0; n < n_count; ++n) row[n] += s * v[n];
        }
    }
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
        std::vector<uint8_t> in;
        try {
            in = gather_bytes(src, spaces);
        } catch (const SemanticsError& e) {
            fail_operand(inst, F::src, e.what());
        }
        const uint32_t size = isa::size_in_bytes(src.dtype);
        std::vector<uint8_t> out(in.size());
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
