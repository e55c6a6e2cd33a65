// The tensor engine's multiply of one tile, as a BLAS call: out[m, n] = sum_k st[k, m] * mv[k, n].
//
// Why a BLAS: the matmuls are nearly all of a functional run's host time (BERT-large, one sequence:
// ~80 GFLOP), and OpenBLAS's kernels run them several times faster than the compiler's loop.
// Why the results do not change: each output is one fp32 accumulator that OpenBLAS's sgemm kernels
// add the products to in ascending k, as the PE array's columns do, starting from zero; alpha = 1
// and beta = 0 leave it as it is. The one difference is that a kernel may fuse the multiply and the
// add (FMA, one rounding instead of two): for bf16, fp16, fp8 and int8 inputs the products are exact
// in fp32 (at most 22 significant bits), so fused and unfused agree bit for bit; for fp32 inputs a
// product is no longer rounded before it is added, at most half an fp32 ulp of that product per
// step (tests/semantics/tile_gemm_test.cpp checks both).
#pragma once

#include <cstdint>

namespace nsim::sim::core {

// st: k_count x m_count, mv: k_count x n_count, out: m_count x n_count, all row-major fp32.
// Overwrites out.
void tile_gemm(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count, float* out);

// The same sums in the plain order, one multiply and one add at a time: the reference tile_gemm is
// checked against, and what runs when a shape is too small for a BLAS call to pay.
void tile_gemm_reference(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count,
                         float* out);

}  // namespace nsim::sim::core
