// A hand-scheduled GEMM for one NeuronCore: C[M, N] (bf16) = A[M, K] @ B[K, N], bf16 inputs, fp32
// accumulation in PSUM. A is supplied transposed (AT[K, M]) so that its tiles load straight into the
// stationary layout (contraction on the partitions), as NKI's matmul tutorial does.
//
// Schedule (tile sizes from the core's limits: TK = max_contraction, TM = max_stationary_free,
// TN = min(max_moving_free, N)):
//   - B is loaded once, in the order the matmuls need it, and stays in SBUF (every m-tile reuses it);
//   - AT streams through a ring of `a_slots` SBUF buffers, one "step" per buffer (2 = double
//     buffering: step s+1 loads while step s multiplies; a buffer is reloaded once its step is done);
//   - the first `first_group_m_tiles` m-tiles form one group whose tiles (x every n-tile) accumulate
//     together, each in its own PSUM bank, the contraction outermost: a step is one k-block of their
//     AT, and it serves every tile of the group (this ramps up with little data per matmul);
//   - every later m-tile is one step holding its whole AT column block; its n-tiles then finish one
//     after the other, so output stores overlap the remaining matmuls and the tail is one tile;
//   - each finished bank is evacuated (fp32 -> bf16) by the scalar, vector and gpsimd engines in turn
//     into a ring of `out_slots` SBUF buffers, from which DMAs store it to C;
//   - every load and store is split by partitions over all DMA engines of the core, each kind of
//     transfer on its own queues, so the per-DMA fixed overheads overlap.
// Semaphores count completed work; each wait is ">= how much must be done by now".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "isa/container.h"

namespace nsim::kernels {

struct GemmShape {
    uint32_t m = 1024, k = 1024, n = 1024;
};

struct GemmSchedule {
    uint32_t first_group_m_tiles = 4;  // m-tiles accumulated together at the start (0: none)
    uint32_t a_slots = 2;              // SBUF buffers the AT k-steps rotate through
    bool b_in_steps = false;           // load B with the first group's steps (else all of it up front)
    uint32_t out_slots = 16;           // SBUF buffers the evacuated output tiles rotate through
    uint32_t psum_banks = 8;           // PSUM banks the output tiles rotate through
    uint32_t dma_split = 16;           // each transfer is split into this many partition slices

    // Loads overlap compute, PSUM and output buffers rotate.
    static GemmSchedule double_buffered();
    // One buffer of each: a step loads only after the previous one multiplied, one output tile at a
    // time through one PSUM bank and one output buffer.
    static GemmSchedule single_buffered();
};

// Builds the program for a core of generation `core` (its version, tile limits, PSUM banks, DMA
// engines, semaphores). With `with_data`, AT and B carry deterministic pseudo-random bf16 values
// (seeded); the reference can recompute them with gemm_inputs(). Throws std::invalid_argument when
// the shape does not tile or the schedule does not fit the core.
isa::Container build_gemm(const config::NeuronCoreSpec& core, const GemmShape& shape, const GemmSchedule& schedule,
                          bool with_data, uint32_t seed = 1);

// The inputs build_gemm(with_data) stores, as fp32 values of the bf16 numbers: AT[K][M], B[K][N].
struct GemmInputs {
    std::vector<float> at, b;
};
GemmInputs gemm_inputs(const GemmShape& shape, uint32_t seed = 1);

// Plain C++ reference: C[m][n] = sum_k AT[k][m] * B[k][n] in fp32 (not rounded).
std::vector<float> gemm_reference(const GemmShape& shape, const GemmInputs& inputs);

// bf16 <-> fp32 of the stored bytes (round to nearest even), for tests and the reference.
uint16_t to_bf16(float value);
float from_bf16(uint16_t bits);

}  // namespace nsim::kernels
