// Reference multi-head scaled dot-product self-attention, in the pieces a hand-scheduled kernel
// computes separately: mask bias, scores -> probabilities, probabilities x V. Activations are
// [batch * seq, hidden]; head h owns columns [h * head_size, (h + 1) * head_size).
#pragma once

#include <cstdint>
#include <vector>

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

// Added to the scores of masked key positions (the original BERT's value; exp() of it is 0 in fp32).
inline constexpr float kMaskedScoreBias = -10000.0f;

// attention_mask [batch * seq] of 1/0 -> [batch, seq] of 0 / kMaskedScoreBias.
Tensor attention_mask_bias(const std::vector<int32_t>& attention_mask, size_t batch, size_t seq);

// softmax(Q K^T / sqrt(head_size) + mask bias) -> [batch, heads, seq, seq].
Tensor attention_probabilities(const Tensor& q, const Tensor& k, const Tensor& mask_bias, size_t batch, size_t seq,
                               size_t heads);

// probabilities x V, heads concatenated -> [batch * seq, hidden] ("context", before the output dense).
Tensor attention_context(const Tensor& probabilities, const Tensor& v, size_t batch, size_t seq, size_t heads);

// The whole self-attention of one layer up to the context: Q/K/V projections, probabilities, context.
Tensor self_attention_context(const Tensor& x, const BertLayerWeights& w, const Tensor& mask_bias, size_t batch,
                              size_t seq, size_t heads);

}  // namespace nsim::kernels::reference
