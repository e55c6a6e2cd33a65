// The embedding layer on the device (--embedding device) and the load of host-computed embeddings
// (--embedding host, as the seeds partition BERT).
//
// On the device, as the hardware does it: the word and token-type rows are fetched by indirect DMAs
// (dma_gather) whose indices are the input tensors in device memory, one descriptor per token, and
// the position rows by plain DMAs; the vector engines add the three, token-major, into the residual
// tiles. Each 128-token tile's gathers are split over the channel's queues, so the descriptors of
// one tile are processed by several DMA engines at once. The tables are stored in the activation
// dtype (nothing multiplies them).
#pragma once

#include "device/kernel_context.h"

namespace nsim::kernels::device {

struct EmbeddingTensors {
    DramMatrix word, token_type, position;  // [vocab, hidden], [types, hidden], [positions, hidden]
};

struct EmbeddingScratch {
    std::vector<Buffer> rows;       // activation dtype [hidden]: token-type and position rows, a ring
};
// Bytes per partition the scratch takes; it lives in aliases of `region` from `offset` on (it is
// used only before the layers that otherwise use the region).
uint64_t embedding_scratch_bytes(uint32_t hidden, const DtypePlan& dtypes);
EmbeddingScratch alias_embedding_scratch(CoreBuilder& core, const Buffer& region, uint64_t offset, uint32_t hidden,
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
