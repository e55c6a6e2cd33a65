// Fully-connected layers y = x W^T + b on the tensor engine, with weights streaming from device
// memory through the weight ring while the previous block multiplies (double buffering and more).
// The two kernels differ in which operand is stationary, and so in the layout of what they produce:
//
// feature_major_linear: out^T[o, t] = func(sum_k W^T[k, o] x^T[k, t] + b[o]). The weight block is
//   stationary (<= max_stationary_free output features, <= max_contraction inputs) and the tokens
//   stream as the moving tile (<= max_moving_free, one PSUM bank of fp32). Output features land on
//   partitions, so the bias is per partition and the scalar engine adds it and applies the
//   activation while it evacuates PSUM - one instruction. Used for Q^T, K^T, the FFN's first half
//   (GELU), the pooler (tanh) and the classifier.
// token_major_linear: out[t, o] (+)= sum_k x^T[k, t] W^T[k, o]. The activations are stationary
//   (<= max_stationary_free tokens) and a weight block of up to max_moving_free columns streams.
//   Tokens land on partitions, as layernorm and the attention context need them. Used for V, the
//   attention output projection and the FFN's second half (whose epilogue adds into the residual).
//
// Loops: output blocks outermost, the contraction next, the accumulators of a block innermost, so
// every weight block is loaded once and every accumulator of the block finishes together; the
// block's accumulators take at most half of the PSUM ring, so the next block accumulates while
// this one is evacuated. When the token chunks of one output tile alone need more than the whole
// ring (thousands of tokens per core), they go in passes that each stream the weights again.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "device/kernel_context.h"

namespace nsim::kernels::device {

// Bias columns (per output feature tile) or none; func is applied after the bias.
void feature_major_linear(KernelContext& ctx, const TileSet& in, const DramMatrix& weights,
                          const std::optional<ColumnParams>& bias, isa::ActivationFunction func, TileSet& out,
                          std::optional<Range> token_columns = std::nullopt, uint32_t token_stride = 1);

// The widest weight block (columns of W^T) each kernel loads over `tokens` tokens (the first pass's,
// for a feature-major linear that needs several): what a weight slot holds and half the PSUM ring
// takes. Known before the weights are written, so they can be laid out in panels this wide
// (DramMatrix::panel_columns) and every block loads as one run per partition row.
uint32_t feature_major_block_columns(const KernelContext& ctx, uint32_t tokens);
uint32_t token_major_block_columns(const KernelContext& ctx, uint32_t tokens);

enum class TokenEpilogue {
    Store,    // out = accumulator (converted to out's dtype)
    AddInto,  // out += accumulator (the residual connection)
};
void token_major_linear(KernelContext& ctx, const TileSet& in, const DramMatrix& weights, TileSet& out,
                        TokenEpilogue epilogue);

// The same schedule with the stationary tiles supplied by the caller: contraction step k multiplies
// rows `rows` of `matrices[k]` by stationary(k, token_tile) ([rows, token tile rows]). prepare(k) is
// called before the matmuls of step k in every pass over the weights (to build operands on the fly,
// e.g. one-hot rows for an embedding lookup).
struct ContractionStep {
    DramMatrix matrix;
    Range rows;
};
void token_major_matmul(KernelContext& ctx, const std::vector<ContractionStep>& steps,
                        const std::function<View(uint32_t step, uint32_t token_tile)>& stationary,
                        const std::function<void(uint32_t step)>& prepare, TileSet& out, TokenEpilogue epilogue);

}  // namespace nsim::kernels::device
