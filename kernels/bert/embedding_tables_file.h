// The embedding layer's parameters alone (word, position and token-type tables, LayerNorm) as a
// safetensors file with Hugging Face's tensor names, in fp32. neuron-build writes one next to a model
// built with the embedding on the host: that part of the model runs on the host CPU (as the seeds
// partition BERT), so its weights stay out of the device program - the runtime would put host tensors
// in the driver's small DMA memory pool - while a run from token ids (run --pairs) still has them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "bert/bert_weights.h"

namespace nsim::kernels {

// Where the tables of a model file go: next to it, bert.bin -> bert.embeddings.safetensors.
std::filesystem::path host_embedding_tables_path(const std::filesystem::path& model_file);

// Returns the CRC-32 of the file written, which the model records to recognise its own tables.
// InputError when the file cannot be written.
uint32_t save_embedding_tables(const std::filesystem::path& path, const BertEmbeddingWeights& tables);

// InputError naming the file when it is missing, malformed, lacks a table, the tables' widths differ,
// or (with `expected_crc32`) it is not the file that was saved.
BertEmbeddingWeights load_embedding_tables(const std::filesystem::path& path,
                                           std::optional<uint32_t> expected_crc32 = std::nullopt);

}  // namespace nsim::kernels
