// Multi-head self-attention from Q^T, K^T (feature-major) and V (token-major) to the context
// (feature-major, ready to be the stationary operand of the output projection).
//
// Per (sequence, head, block of up to 128 query tokens):
//   scores   PE   matmul: Q_h^T block stationary (head_size x queries), K_h^T of the sequence moving
//                 (head_size x seq <= max_moving_free) -> PSUM [queries, seq]
//   mask     DVE  scores + mask (PSUM + SBUF in one pass), mask = (attention_mask - 1) * 10000 / scale
//   softmax  DVE  row max, -scale * max; ACT exp(scale * x - scale * max) with its row sum in the same
//                 instruction, then 1 / sum; GpSimd (DVE on NC-v1) p = e / sum in the matmul dtype
//   P^T      PE   transposes of the probabilities per block of keys (a 128-key block of one token tile)
//                 -> PSUM, ACT copies them to SBUF in the matmul dtype (training: DVE dropout on
//                 P first, AttentionDropout)
//   context  PE   matmul: V_h block stationary (keys x head_size), P^T moving (keys x queries),
//                 accumulated over the key blocks -> PSUM [head_size, queries] on the head's partitions
//   evacuate ACT  + bv per partition (the value bias: each probability row sums to 1, so P (V + bv)
//                 = P V + bv), into the context's columns of the head's feature tile.
// The three stages are software-pipelined over the work items (stage 1 of item i, stage 2 of item
// i-1, stage 3 of item i-2), so the tensor engine multiplies the next scores while the vector and
// scalar engines finish a softmax.
#pragma once

#include "device/kernel_context.h"

namespace nsim::kernels::device {

struct AttentionShape {
    uint32_t batch = 1, seq = 128, heads = 1, head_size = 64;
};

struct AttentionScratch {
    Buffer mask;                   // fp32 [partitions, tokens]: additive key mask, the same on every partition
    std::vector<Buffer> scores;    // fp32 [seq], a ring (exp is written in place)
    std::vector<Buffer> stats;     // fp32 [4]: max, -scale*max, sum, 1/sum
    std::vector<Buffer> probs;     // matmul dtype [seq]
    std::vector<Buffer> probs_t;   // matmul dtype [queries]: P^T of one key block
};
AttentionScratch allocate_attention_scratch(CoreBuilder& core, const AttentionShape& shape, const DtypePlan& dtypes);
// The mask alone, and the softmax's ring alone into `scratch` (what allocate_attention_scratch does in
// two parts: a training step keeps the mask for the backward and gives the ring back after the forward).
Buffer allocate_attention_mask(CoreBuilder& core, const AttentionShape& shape);
void allocate_softmax_ring(CoreBuilder& core, const AttentionShape& shape, const DtypePlan& dtypes, AttentionScratch& scratch);

// The mask from attention_mask rows [first_row, first_row + batch) of the int32 tensor
// `attention_mask` [rows, seq], loaded on `channel`. `staging` is an int32 [tokens] SBUF buffer.
void build_attention_mask(KernelContext& ctx, const AttentionShape& shape, uint32_t attention_mask,
                          uint32_t first_row, builder::DmaChannel& channel, const Buffer& staging,
                          AttentionScratch& scratch);

// Dropout on the probabilities (training; train/dropout.h): head h's with key first_key + h, the
// query rows numbered from first_row + the query's token, the keys by their place in the sequence.
// With dropout the rows of P no longer sum to 1: value_bias must be zero (V with its bias in).
struct AttentionDropout {
    float probability = 0;  // 0: none
    uint32_t first_key = 0, first_row = 0;
};

void self_attention(KernelContext& ctx, const AttentionShape& shape, const TileSet& q_t, const TileSet& k_t,
                    const TileSet& v, const ColumnParams& value_bias, TileSet& context_t, AttentionScratch& scratch,
                    const AttentionDropout& dropout = {});

// 1 / sqrt(head_size): the scores' scale.
float attention_scale(uint32_t head_size);

// The longest sequence the attention kernels (these and train/attention_backward.h) take: a query
// block's scores [queries, seq] are one matmul, seq keys one moving tile into one PSUM bank of fp32.
// Keys span several token tiles beyond one partition tile (the P^T / dS^T transposes go per key block).
uint32_t widest_attention_row(const config::NeuronCoreSpec& spec);

}  // namespace nsim::kernels::device
