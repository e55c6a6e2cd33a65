// The two tensor-engine building blocks every backward kernel needs besides the forward linear
// kernels (training.md A3):
//
// contract_tokens: out[m, n] = sum_t a[t, m] b[t, n] for token-major a and b (tokens on partitions,
//   which is how the forward pass produced them). Both operands already have the contraction on
//   partitions, so no transpose: a is the stationary tile (<= max_stationary_free columns of it per
//   output tile), b streams as the moving tile (<= one PSUM bank of fp32 columns), and the token tiles
//   accumulate in PSUM. This is every "sum over tokens" of the backward pass: a weight gradient
//   dW = dY^T X, a bias gradient (a = a column of ones), an embedding gradient (a = one-hot rows of the
//   token ids: the scatter-add of rows as a matmul), dV = P^T dY and dK = dS^T Q in attention.
// transpose_tiles: out = in^T, 128x128 blocks through the tensor engine into PSUM (fp32), evacuated
//   to out's dtype - what turns a token-major gradient into the feature-major operand of dX = dY W.
#pragma once

#include <string>

#include "builder/program_builder.h"
#include "device/kernel_context.h"

namespace nsim::kernels::train {

using device::KernelContext;
using device::TileSet;
using builder::CoreBuilder;

// a [T, M], b [T, N] token-major with the same token tiling and dtype; out [M, N] (M on partitions).
void contract_tokens(KernelContext& ctx, const TileSet& a, const TileSet& b, TileSet& out);
// One block of that product: out [m.size, n.size] = rows m x columns n of a^T b (columns m of a,
// columns n of b). What a gradient made a block at a time goes through (gradient_sink.h).
void contract_tokens(KernelContext& ctx, const TileSet& a, const TileSet& b, TileSet& out, device::Range m,
                     device::Range n);

// in [R, C] -> out [C, R].
void transpose_tiles(KernelContext& ctx, const TileSet& in, TileSet& out);

// The constant row 0, 1, ..., count - 1 (fp32) as a weight tensor of the program: what one-hot rows are
// compared against (cross-entropy labels, embedding ids). Returns the tensor index.
uint32_t add_index_row(builder::ProgramBuilder& program, const std::string& name, uint32_t count);
// Row `tensor` ([1, columns] fp32 in device memory) broadcast over every partition of a new buffer.
builder::Buffer load_broadcast_row(KernelContext& ctx, builder::DmaChannel& channel, uint32_t tensor, uint32_t columns,
                                   const std::string& what);

// Elements [first, first + columns) of `tensor` in device memory (row-major, in `dtype`) broadcast
// over partitions [0, partitions) of `dst` (converted to dst's dtype by the DMA), the partitions
// spread over the channel's queues (one DMA engine each: a row per partition is a descriptor each).
void broadcast_elements(KernelContext& ctx, builder::DmaChannel& channel, uint32_t tensor, isa::DType dtype,
                        uint64_t first, uint32_t columns, const builder::Buffer& dst, isa::DType dst_dtype,
                        uint32_t partitions);

// A [rows, 1] TileSet of ones in `dtype` (the stationary operand of a sum over tokens).
TileSet ones_column(KernelContext& ctx, uint32_t rows, isa::DType dtype);

// Rows [first, first + count) of a token-major TileSet (whole tiles of it: `first` a multiple of its
// tile rows), sharing its SBUF; of a TileSet without tiles (a shape), that shape's rows.
TileSet row_tiles(const TileSet& set, uint32_t first, uint32_t count);

// The tokens of a pass a feed-forward block takes at once (TrainingOptions::chunk_tokens): `chunk`
// of its `tokens`, whole tiles of `tile_rows` dividing them; all of them when `chunk` is 0 or not
// below them. `who` names the kernel in the error.
uint32_t ffn_chunk_tokens(uint32_t chunk, uint32_t tokens, uint32_t tile_rows, const std::string& who);

}  // namespace nsim::kernels::train
