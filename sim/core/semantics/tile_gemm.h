// The tensor engine's multiply of one tile, as a BLAS call: out[m, n] = sum_k st[k, m] * mv[k, n].
//
// Why a BLAS: the matmuls are nearly all of a functional run's host time (BERT-large, one sequence:
// ~80 GFLOP), and OpenBLAS's kernels run them several times faster than the compiler's loop.
// Why the results do not change: each output is one fp32 accumulator that OpenBLAS's sgemm kernels
// add the products to in ascending k, as the PE array's columns do, starting from zero; alpha = 1
// and beta = 0 leave it as it is. A kernel may fuse the multiply and the add (FMA, one rounding
// instead of two), so the BLAS only runs when the products are exact in fp32 and fusing changes
// nothing: both inputs bf16, fp16, fp8, int8 or uint8 (at most 11 significant bits each, 22 in a
// product). fp32 and int32 inputs keep the plain loop, rounding every product as before. The one
// corner where even narrow products round: a bf16 x bf16 product beyond fp32's range (overflow) or
// below its normal range (2^-126, where fp32 loses significant bits); a fused step would round once
// where the loop rounds twice, so a tile with such a product keeps the plain loop too (checked per
// tile, products_stay_normal).
// Not every OpenBLAS kernel keeps that order: the kernel is chosen by the host's CPU (Debian's
// OpenBLAS is built for every x86 core and picks one at start), and the Zen kernel, for one, sums
// in another order. So the first call checks, once per process, that this host's sgemm gives the
// plain loop's sums bit for bit on narrow random values, and uses the loop when it does not: the
// simulated results never depend on the host, only the host time does (blas_keeps_the_order()).
// Without the BLAS, narrow inputs whose products are all exact run a loop that fuses each multiply
// and add, which then changes no bit, on hosts with FMA; everything else runs the plain order's
// loop, blocked and vectorised (tile_gemm_in_order).
// tests/semantics/tile_gemm_test.cpp checks bit-equality with the one-at-a-time reference on random
// bf16 and fp16 values, on narrow values whose products overflow or underflow, and on fp32 values.
#pragma once

#include <cstdint>

namespace nsim::sim::core {

// st: k_count x m_count, mv: k_count x n_count, out: m_count x n_count, all row-major fp32.
// Overwrites out. `exact_products`: every st x mv product is exact in fp32 (narrow input dtypes).
void tile_gemm(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count, float* out,
               bool exact_products);

// Whether this host's OpenBLAS sums in the plain order (checked once, on the first call): when it
// does not, tile_gemm runs the plain loop.
bool blas_keeps_the_order();

// The same sums in the plain order, one multiply and one add at a time, as simply as it can be
// written: what tile_gemm is checked against.
void tile_gemm_reference(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count,
                         float* out);

// The plain order's sums, bit for bit, blocked over rows and vectorised over n: what runs for fp32
// and int32 inputs, for shapes too small for a BLAS call to pay and on hosts whose BLAS sums in
// another order.
void tile_gemm_in_order(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count,
                        float* out);

}  // namespace nsim::sim::core
