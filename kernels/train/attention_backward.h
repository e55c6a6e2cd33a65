// Backward of multi-head self-attention (device/attention_kernel.h) given the gradient of the context,
// the flash-attention backward recipe (training.md A3): the probabilities are recomputed from Q and K
// (not stored by the forward), then per (sequence, head, query block) - query blocks being the parts
// of a sequence inside one token tile, on the partitions those tokens have there:
//   S, P     PE Q_h K_h^T -> PSUM; DVE + mask, row max; ACT exp with the row sum; P = e / sum (fp32,
//            and a matmul-dtype copy)
//   dP       PE dC_h V_h^T -> PSUM                       (contraction over head_size: feature-major)
//   dS       DVE scale * P (dP - rowsum(dP P))           (softmax_backward_rows)
//   dV_h^T   PE dC_h(block)^T P   -> [head_size, seq]    (contraction over the block's queries:
//   dK_h^T   PE Q_h(block)^T dS   -> [head_size, seq]     token-major operands, no transpose)
//            summed over the sequence's query blocks in fp32: in two PSUM banks
//            held over the head (blocks of one shape), else in SBUF
//   dQ_h^T   PE K_h^T dS^T, dS^T per key block by PE transposes, accumulated over the key blocks
// Gradients come out feature-major (head h on its partitions of its feature tile), as the forward
// keeps Q^T and K^T. The work items run one after the other (no software pipelining yet).
// With dropout (the forward's context = D(P) V, D = the mask / (1 - p)): dV uses D(P), made by the
// same dropout instruction the forward issued on P, and the softmax backward gets D applied to dP
// (dD(P) = dC V^T). A row of D(P) does not sum to 1, so dP's per-row share of V's bias no longer
// cancels: v_t must then be V with its bias (the training forward's is).
#pragma once

#include "device/attention_kernel.h"
#include "train/tile_products.h"

namespace nsim::kernels::train {

struct AttentionBackwardInputs {
    const TileSet* q = nullptr;     // token-major [tokens, hidden], matmul dtype
    const TileSet* k = nullptr;     // token-major
    const TileSet* q_t = nullptr;   // feature-major [hidden, tokens]
    const TileSet* k_t = nullptr;   // feature-major
    const TileSet* v_t = nullptr;   // feature-major (V without its bias: P (V + bv) = P V + bv)
    const TileSet* dc = nullptr;    // dL/dcontext, token-major
    const TileSet* dc_t = nullptr;  // dL/dcontext, feature-major
    builder::Buffer mask;           // fp32 [partitions, tokens], as device::build_attention_mask makes it
    device::AttentionDropout dropout;  // the forward's; with it, v_t must include V's bias
};

struct AttentionBackwardOutputs {
    TileSet* q_t = nullptr;  // dL/dQ^T [hidden, tokens]
    TileSet* k_t = nullptr;  // dL/dK^T
    TileSet* v_t = nullptr;  // dL/dV^T
};

void attention_backward(KernelContext& ctx, const device::AttentionShape& shape, const AttentionBackwardInputs& in,
                        const AttentionBackwardOutputs& out);

}  // namespace nsim::kernels::train
