// The real BERT-tiny SST-2 weights in ../shared/data/bert-tiny-sst2-fhe: config.json, weights.json (name,
// shape, byte offset and size of each tensor) and weights.bin (raw little-endian fp32). The folder has
// the encoder, pooler and classifier only, so the model runs from embedding-layer outputs.
#pragma once

#include <filesystem>

#include "bert/bert_weights.h"

namespace nsim::kernels {

// Returns weights without embeddings. Throws InputError naming the file and tensor for a missing or
// mis-shaped tensor, or an offset outside weights.bin.
BertWeights load_fhe_tiny_checkpoint(const std::filesystem::path& dir);

// A raw little-endian fp32 file (the folder's test vectors) as a tensor of `shape`; InputError when the
// size does not match.
Tensor read_raw_f32(const std::filesystem::path& path, const Shape& shape);

}  // namespace nsim::kernels
