#include "core/semantics/tile_gemm.h"

#include <dlfcn.h>
#include <openblas-pthread/cblas.h>  // the declarations only: the library is loaded when needed

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace nsim::sim::core {
namespace {

// OpenBLAS is loaded when a functional matmul first asks for it, not with every process: Debian's
// build starts a worker thread per core when it is loaded, and each spins for about 0.15 s of CPU
// before it sleeps, in every tool and test, although timing runs never multiply (it was more than
// half of the test suite's CPU). The simulator multiplies one tile at a time on its own thread, so
// the library is loaded with one thread, unless the user set OPENBLAS_NUM_THREADS. A process that
// has it loaded already (numpy's) shares that copy. Without it, tile_gemm runs its loops.
using Sgemm = decltype(&cblas_sgemm);

Sgemm load_sgemm() {
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    void* library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    return library ? reinterpret_cast<Sgemm>(dlsym(library, "cblas_sgemm")) : nullptr;
}

Sgemm sgemm() {
    static const Sgemm loaded = load_sgemm();
    return loaded;
}

// Below this many multiply-adds the call overhead outweighs the faster kernel.
constexpr uint64_t kSmallestBlasProducts = 4096;

void blas_gemm(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count, float* out) {
    sgemm()(CblasRowMajor, CblasTrans, CblasNoTrans, int(m_count), int(n_count), int(k_count), 1.0f, st, int(m_count),
            mv, int(n_count), 0.0f, out, int(n_count));
}

// One tile of random bf16-like values (8 significant bits, products exact in fp32) through the
// BLAS and through the loop: a full tile's depth and a ragged one, since kernels treat the
// remainder of k apart.
bool blas_sums_like_the_loop() {
    std::mt19937 rng(2026);
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    const auto narrow = [&] {
        float v = value(rng);
        uint32_t raw;
        std::memcpy(&raw, &v, 4);
        raw &= 0xffff0000u;
        std::memcpy(&v, &raw, 4);
        return v;
    };
    for (const uint32_t k : {128u, 37u}) {
        const uint64_t m = 32, n = 96;
        std::vector<float> st(k * m), mv(k * n), blas(m * n), loop(m * n);
        for (float& v : st) v = narrow();
        for (float& v : mv) v = narrow();
        blas_gemm(st.data(), mv.data(), k, m, n, blas.data());
        tile_gemm_reference(st.data(), mv.data(), k, m, n, loop.data());
        if (std::memcmp(blas.data(), loop.data(), blas.size() * sizeof(float)) != 0) return false;
    }
    return true;
}

// Eight fp32 lanes (GCC's vector extension: one AVX register, or two SSE ones where AVX is absent).
typedef float Lanes __attribute__((vector_size(32)));
// Lanes from and to any float's address (one unaligned load or store).
// (By reference: a vector passed by value would take another calling convention in the clone without AVX.)
__attribute__((always_inline)) inline void load_lanes(Lanes& lanes, const float* at) {
    std::memcpy(&lanes, at, sizeof lanes);
}
__attribute__((always_inline)) inline void store_lanes(float* at, const Lanes& lanes) {
    std::memcpy(at, &lanes, sizeof lanes);
}

// The plain order's sums for outputs [m_begin, m_end) x [n_begin, n_end), one element at a time:
// the ragged edges the blocks of all_in_order leave.
__attribute__((always_inline)) inline void elements_in_order(const float* st, const float* mv, uint32_t k_count,
                                                             uint64_t m_count, uint64_t n_count, uint64_t m_begin,
                                                             uint64_t m_end, uint64_t n_begin, uint64_t n_end,
                                                             float* out) {
    for (uint64_t m = m_begin; m < m_end; ++m)
        for (uint64_t n = n_begin; n < n_end; ++n) {
            float sum = 0.0f;
            for (uint32_t k = 0; k < k_count; ++k) sum += st[k * m_count + m] * mv[k * n_count + n];
            out[m * n_count + n] = sum;
        }
}

// Every element starts at zero and adds its products one at a time in ascending k, each product
// rounded to fp32 and then each add (the semantics are built with -ffp-contract=off,
// sim/CMakeLists.txt), so the sums are the one-at-a-time loop's bit for bit. Blocks of kRows x
// kColumns outputs keep their sums in vector registers for the whole of k (each step: kRows values
// of st, each broadcast, times one row of kColumns values of mv); a column strip of mv (k x kColumns)
// stays in the L1 cache while every row block passes over it.
constexpr uint64_t kRows = 4, kColumns = 16;

__attribute__((always_inline)) inline void all_in_order(const float* __restrict st, const float* __restrict mv,
                                                        uint32_t k_count, uint64_t m_count, uint64_t n_count,
                                                        float* __restrict out) {
    constexpr uint64_t kLanes = sizeof(Lanes) / sizeof(float), kVectors = kColumns / kLanes;
    const uint64_t m_blocked = m_count / kRows * kRows, n_blocked = n_count / kColumns * kColumns;
    for (uint64_t n0 = 0; n0 < n_blocked; n0 += kColumns)
        for (uint64_t m0 = 0; m0 < m_blocked; m0 += kRows) {
            Lanes sum[kRows][kVectors] = {};
            for (uint32_t k = 0; k < k_count; ++k) {
                const float* s = st + k * m_count + m0;
                Lanes values[kVectors];
                for (uint64_t j = 0; j < kVectors; ++j) load_lanes(values[j], mv + k * n_count + n0 + j * kLanes);
                for (uint64_t r = 0; r < kRows; ++r)
                    for (uint64_t j = 0; j < kVectors; ++j) sum[r][j] += s[r] * values[j];
            }
            for (uint64_t r = 0; r < kRows; ++r)
                for (uint64_t j = 0; j < kVectors; ++j) store_lanes(out + (m0 + r) * n_count + n0 + j * kLanes, sum[r][j]);
        }
    elements_in_order(st, mv, k_count, m_count, n_count, m_blocked, m_count, 0, n_count, out);
    elements_in_order(st, mv, k_count, m_count, n_count, 0, m_blocked, n_blocked, n_count, out);
}

// The same loop with each product and add fused into one instruction (one rounding), for hosts with
// AVX2 and FMA. tile_gemm runs it only when every product is exact in fp32: then round(s * v) = s * v,
// so round(sum + round(s * v)) = round(sum + s * v) and fusing changes no bit.
__attribute__((target("avx2,fma"), optimize("fp-contract=fast"))) void all_fused(const float* st, const float* mv,
                                                                                 uint32_t k_count, uint64_t m_count,
                                                                                 uint64_t n_count, float* out) {
    all_in_order(st, mv, k_count, m_count, n_count, out);
}

bool host_fuses() {
    static const bool fuses = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return fuses;
}

// The smallest non-zero and the largest magnitude among `count` values, as the bit patterns of
// their absolute values (which order as the magnitudes do; infinity and NaN above every finite
// value). Integer minima and maxima vectorise where float ones, with NaN rules, do not.
__attribute__((target("avx2,fma"))) void magnitude_bits(const float* v, size_t count, uint32_t& low, uint32_t& high) {
    uint32_t below_low = 0xFFFFFFFFu, top = 0;  // below_low: bits - 1, so that zero (0 - 1) never wins
    for (size_t i = 0; i < count; ++i) {
        uint32_t bits;
        std::memcpy(&bits, v + i, 4);
        bits &= 0x7FFFFFFFu;
        below_low = std::min(below_low, bits - 1u);
        top = std::max(top, bits);
    }
    low = below_low + 1u;  // 0 when every value is zero
    high = top;
}

// Whether every product of a value of `a` and a value of `b` is a normal fp32 number or zero, given
// that its significand fits (narrow inputs): no infinity or NaN among them, and the largest and
// smallest non-zero magnitudes multiply to within fp32's normal range. Then every product is exact.
bool products_stay_normal(const float* a, size_t a_count, const float* b, size_t b_count) {
    constexpr uint32_t kInfinityBits = 0x7F800000u;
    uint32_t a_low, a_high, b_low, b_high;
    magnitude_bits(a, a_count, a_low, a_high);
    magnitude_bits(b, b_count, b_low, b_high);
    if (a_high >= kInfinityBits || b_high >= kInfinityBits) return false;
    if (a_high == 0 || b_high == 0) return true;  // every product is zero
    const auto value = [](uint32_t bits) {
        float f;
        std::memcpy(&f, &bits, 4);
        return double(f);
    };
    return value(a_high) * value(b_high) < std::ldexp(1.0, 127) &&
           value(a_low) * value(b_low) >= std::ldexp(1.0, -126);
}

}  // namespace

// Built twice, for AVX2 hosts (eight lanes) and for any x86-64 (four); the loader picks one. AVX2
// alone brings no fused multiply-add, so both compute the same sums.
__attribute__((target_clones("avx2", "default"))) void tile_gemm_in_order(const float* st, const float* mv,
                                                                          uint32_t k_count, uint64_t m_count,
                                                                          uint64_t n_count, float* out) {
    all_in_order(st, mv, k_count, m_count, n_count, out);
}

void tile_gemm_reference(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count,
                         float* out) {
    elements_in_order(st, mv, k_count, m_count, n_count, 0, m_count, 0, n_count, out);
}

void tile_gemm(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count, float* out,
               bool exact_products) {
    // Narrow inputs make exact products unless one leaves fp32's normal range (checked per tile): only
    // then may a step fuse the multiply and the add, as the BLAS kernels and all_fused do.
    const bool exact = exact_products && products_stay_normal(st, size_t(k_count) * m_count, mv, size_t(k_count) * n_count);
    if (exact && uint64_t(k_count) * m_count * n_count >= kSmallestBlasProducts && blas_keeps_the_order()) {
        blas_gemm(st, mv, k_count, m_count, n_count, out);
        return;
    }
    // Without the BLAS, a host with FMA does both in one instruction, twice as fast.
    if (exact && host_fuses()) {
        all_fused(st, mv, k_count, m_count, n_count, out);
        return;
    }
    tile_gemm_in_order(st, mv, k_count, m_count, n_count, out);
}

bool blas_keeps_the_order() {
    static const bool keeps = sgemm() && blas_sums_like_the_loop();
    return keeps;
}

}  // namespace nsim::sim::core
