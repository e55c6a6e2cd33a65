// Reference embedding layer: word + position + token-type embeddings, then LayerNorm.
#pragma once

#include "bert/bert_weights.h"
#include "bert/token_batch.h"

namespace nsim::kernels::reference {

// -> [batch * seq_len, hidden]. Positions are 0..seq_len-1 in every sequence (padding included, as in
// Hugging Face). Throws std::out_of_range for an id outside its table or seq_len > max positions.
Tensor embeddings(const BertEmbeddingWeights& w, const TokenBatch& tokens, double layer_norm_eps);

}  // namespace nsim::kernels::reference
