// A Hugging Face BERT checkpoint directory as users have it: config.json + model.safetensors.
#pragma once

#include <filesystem>

#include "bert/bert_weights.h"
#include "bert/safetensors_dtype.h"

namespace nsim::kernels {

// Reads DIR/config.json and DIR/model.safetensors (BertForSequenceClassification names; a bare
// BertModel's names without the "bert." prefix and the older LayerNorm gamma/beta names are accepted;
// extra tensors such as position_ids or a pre-training head are ignored). Throws InputError naming
// the missing file, the missing tensor, or the tensor with both shapes.
BertWeights load_hf_checkpoint(const std::filesystem::path& dir);

// Writes DIR/config.json and DIR/model.safetensors with the standard names (creates DIR). Weights
// without embeddings are written without embedding tensors.
void save_hf_checkpoint(const std::filesystem::path& dir, const BertWeights& weights,
                        SafetensorsDtype dtype = SafetensorsDtype::F32);

}  // namespace nsim::kernels
