// The host side of a BERT program built with the embedding on the host (as the seeds partition it):
// the word, position and token-type tables and the embedding LayerNorm travel inside the program file
// as fp32 weight tensors in host memory, so a run that starts from token ids (run --pairs) computes
// the embedding-layer output on the host from the same file the device part comes from - as a traced
// model carries its CPU-side weights next to the compiled device graph. No instruction reads them.
#pragma once

#include <optional>

#include "bert/bert_weights.h"
#include "isa/container.h"

namespace nsim::kernels::device {

// Appends the tables to a finished program, after its host-memory tensors.
void add_host_embedding_tables(isa::Container& program, const BertEmbeddingWeights& tables);

// The tables of a program built by add_host_embedding_tables; nullopt when it has none (built without
// weights, with the embedding on the device, or from weights without embedding tables).
std::optional<BertEmbeddingWeights> read_host_embedding_tables(const isa::Container& program);

}  // namespace nsim::kernels::device
