// The embedding layer on the device (--embedding device) and the load of host-computed embeddings
// (--embedding host, as the seeds partition BERT).
//
// The ISA has no gather, so the word and token-type lookups are matmuls with one-hot rows: for each
// 128-row block of the vocabulary, GpSimd (vector engine on NC-v1) builds onehot^T[v, t] =
// (id[t] == v) in the matmul dtype (exact) and the tensor engine accumulates onehot^T x table
// (streamed through the weight ring like any weight) into PSUM, token-major. The position rows are
// plain DMAs into the residual tiles, added by the epilogue. The cost is a pass over the whole
// vocabulary table per inference - which is why the seeds keep the embedding on the host.
#pragma once

#include "device/kernel_context.h"

namespace nsim::kernels::device {

struct EmbeddingTensors {
    DramMatrix word, token_type, position;  // [vocab, hidden], [types, hidden], [positions, hidden]
    uint32_t vocabulary_index = 0;           // fp32 [partitions, vocab blocks]: v = block * partitions + p
    uint32_t vocabulary_blocks = 0;
};

struct EmbeddingScratch {
    Buffer ids, types;              // fp32 [tokens]: ids broadcast on every partition
    Buffer staging;                 // int32 [tokens]
    Buffer vocabulary_index;        // fp32 [vocab blocks]
    std::vector<Buffer> one_hot;    // matmul dtype [tokens], a ring
};
EmbeddingScratch allocate_embedding_scratch(CoreBuilder& core, uint32_t tokens, uint32_t vocabulary_blocks,
                                            const DtypePlan& dtypes);

// resid = word[ids] + token_type[types] + position[0..seq) for rows [first_row, first_row + batch)
// of the int32 [rows, seq] tensors (before layernorm).
void device_embedding(KernelContext& ctx, const EmbeddingTensors& tables, uint32_t input_ids, uint32_t token_types,
                      uint32_t first_row, uint32_t batch, uint32_t seq, builder::DmaChannel& inputs,
                      EmbeddingScratch& scratch, TileSet& resid);

// resid = rows [first_token, ...) of the fp32 [tokens, hidden] tensor `embeddings`.
void load_host_embeddings(KernelContext& ctx, uint32_t embeddings, uint32_t first_token, builder::DmaChannel& inputs,
                          TileSet& resid);

}  // namespace nsim::kernels::device
