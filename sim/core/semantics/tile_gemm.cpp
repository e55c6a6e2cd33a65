#include "core/semantics/tile_gemm.h"

#include <openblas-pthread/cblas.h>

#include <cstring>
#include <random>
#include <vector>

namespace nsim::sim::core {
namespace {

// The simulator is one host thread per process, and the machine it runs on is shared: OpenBLAS's
// own threads would only compete with it (and with other simulations).
struct OneBlasThread {
    OneBlasThread() { openblas_set_num_threads(1); }
};

// Below this many multiply-adds the call overhead outweighs the faster kernel.
constexpr uint64_t kSmallestBlasProducts = 4096;

void blas_gemm(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count, float* out) {
    static const OneBlasThread one_thread;
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(m_count), int(n_count), int(k_count), 1.0f, st,
                int(m_count), mv, int(n_count), 0.0f, out, int(n_count));
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

}  // namespace

void tile_gemm_reference(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count,
                         float* out) {
    // Four k at a time per pass over the row (fewer loads and stores of the partial sums); each
    // element still adds its products one by one in ascending k.
    for (uint64_t m = 0; m < m_count; ++m) {
        float* row = out + m * n_count;
        for (uint64_t n = 0; n < n_count; ++n) row[n] = 0.0f;
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
}

void tile_gemm(const float* st, const float* mv, uint32_t k_count, uint64_t m_count, uint64_t n_count, float* out,
               bool exact_products) {
    if (!exact_products || uint64_t(k_count) * m_count * n_count < kSmallestBlasProducts || !blas_keeps_the_order()) {
        tile_gemm_reference(st, mv, k_count, m_count, n_count, out);
        return;
    }
    blas_gemm(st, mv, k_count, m_count, n_count, out);
}

bool blas_keeps_the_order() {
    static const bool keeps = blas_sums_like_the_loop();
    return keeps;
}

}  // namespace nsim::sim::core
