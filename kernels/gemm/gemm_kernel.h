// A hand-scheduled GEMM for one NeuronCore: C[M, N] (bf16) = A[M, K] @ B[K, N], bf16 inputs, fp32
// accumulation in PSUM. A is supplied transposed (AT[K, M]) so that its tiles load straight into the
// stationary layout (contraction on the partitions), as NKI's matmul tutorial does.
//
// Tiles come from the core's limits: TK = max_contraction (K rows per matmul), TM = max_stationary_free
// (C rows), TN = min(max_moving_free, N) (C columns, one fp32 PSUM bank). On NeuronCore-v2 the 1024^3
// GEMM is 8 m-tiles x 8 k-blocks x 2 n-tiles = 128 matmuls of 512 cycles, 23.4 us of tensor engine.
//
// Why the schedule looks as it does (cost model: configs/chips/nc-v2.yaml): moving A and B in and C
// out (6 MiB) keeps the core's 16 DMA engines busy for 23.1 us, about as long as the matmuls, and
// every DMA first pays a fixed 1.3 us before its bytes move. So the engines must be kept moving bytes
// from the first microsecond to the last, in the order the tensor engine needs them, and little may
// be left to do after the last matmul.
//
//   - Steps and the AT ring (the double buffering): the matmuls are cut into steps; each step's AT
//     tiles live in one of `a_slots` SBUF slots (2: a step's AT loads while the previous step
//     multiplies; a slot is reloaded once the step that used it has streamed its last matmul). A
//     step's AT arrives in parts, one transfer and one semaphore each, so that its first matmuls
//     start before the rest has landed.
//   - The first group: the first `group_m_tiles` m-tiles accumulate together, each with every n-tile
//     in its own PSUM bank, the contraction outermost, `group_step_k_blocks` k-blocks per step. A B
//     tile (128 KiB) then serves 4 matmuls in a row with 4 AT tiles (32 KiB each, one part each):
//     384 KiB per 8 matmuls, which the DMA engines move in 99% of the matmuls' time while B streams in.
//   - B stays in SBUF once loaded (every m-tile uses all of it), one transfer per [TK, TN] tile,
//     loaded when the matmuls first need it.
//   - The later m-tiles, `column_step_m_tiles` per step, each with its whole AT column block (in
//     `column_parts` parts): its output tiles finish one after the other, so their stores overlap the
//     remaining matmuls. Two m-tiles per step give a reload a whole 5.9 us step to land behind the
//     burst of the group's stores.
//   - The very last output tile is cut into halving widths (TN/2, TN/4, ... down to `tail_min_n`,
//     twice), so that only a narrow evacuation and a small store follow the last matmul.
//   - Each finished PSUM bank is evacuated (fp32 -> bf16) by the scalar, vector and gpsimd engines in
//     turn into a ring of `out_slots` SBUF buffers, from which a transfer stores it to C.
//   - Transfers and DMA queues: every transfer is split by partitions over all DMA engines of the
//     core (queue q runs on engine q mod engines), so it moves at the whole core's rate. Loads go
//     round-robin, in need order, over `load_lanes` queues per engine, stores over `store_lanes`
//     others: while one DMA of an engine moves bytes, several others are in their fixed overhead.
//     (With 2 KiB and 8 KiB slices, 0.12 and 0.48 us of bytes against 1.3 us of overhead, fewer
//     than ~7 load queues leave the engines idle.)
// Semaphores count completed work; each wait is ">= how much must be done by now".
// Since DMA descriptors are costed (one per partition row, configs dma_descriptor_s), the AT loads'
// 256 B rows make the DMA engines the bound (tests/core/gemm_kernel_test.cpp): the next step for this
// schedule is AT transfers of several m-tiles, rows of >= 2 KiB (DMABW).
//
// Measured numbers and the bound they are held to: tests/core/gemm_kernel_test.cpp.
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
    uint32_t group_m_tiles = 4;        // m-tiles accumulated together at the start (0: none)
    uint32_t group_step_k_blocks = 2;  // k-blocks of the group per step (one AT slot)
    uint32_t group_part_m_tiles = 1;   // m-tiles per AT transfer of a group step (one k-block each)
    uint32_t column_step_m_tiles = 2;  // later m-tiles per step (one AT slot)
    uint32_t column_parts = 2;         // AT transfers per later m-tile
    uint32_t a_slots = 2;              // SBUF slots the steps' AT rotates through
    uint32_t tail_min_n = 64;          // narrowest piece of the halved last output tile (0: not halved)
    uint32_t out_slots = 16;           // SBUF buffers the evacuated output tiles rotate through
    uint32_t psum_banks = 8;           // PSUM banks the output tiles rotate through
    uint32_t load_lanes = 8;           // DMA queues per engine carrying loads
    uint32_t store_lanes = 6;          // DMA queues per engine carrying stores

    // Loads overlap compute, PSUM and output buffers rotate.
    static GemmSchedule double_buffered();
    // One buffer of each: a step loads only after the previous one multiplied, one output tile at a
    // time through one PSUM bank and one output buffer.
    static GemmSchedule single_buffered();
};

// Builds the program for a core of generation `core` (its version, tile limits, PSUM banks, DMA
// engines and queues, semaphores). With `with_data`, AT and B carry deterministic pseudo-random bf16
// values (seeded); the reference can recompute them with gemm_inputs(). Throws std::invalid_argument
// when the shape does not tile or the schedule does not fit the core.
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
