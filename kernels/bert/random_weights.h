// Deterministic random BERT weights for runs without --weights: the same seed gives the same bits on
// every platform and standard library (no <random> distributions, no libm), and each tensor's values
// depend only on the seed and the tensor's name, not on which other tensors exist.
#pragma once

#include <cstdint>
#include <string_view>

#include "bert/bert_weights.h"

namespace nsim::kernels {

// Linear and embedding weights and all biases ~ approximately N(0, initializer_range); LayerNorm
// gamma ~ 1 + N(0, 0.1), beta ~ N(0, 0.1). Biases and LayerNorm are not left at 0/1 (as a fresh
// Hugging Face model has them) so that a kernel that forgets one of them fails its test.
// With `pretraining`, BertForPreTraining's heads too (make_empty_bert_weights).
BertWeights random_bert_weights(const BertConfig& config, uint64_t seed, bool with_embeddings = true,
                                bool pretraining = false);

// Fills `tensor` with approximately standard-normal values times `stddev` plus `mean`, from a stream
// keyed by (seed, name).
void fill_random_normal(Tensor& tensor, uint64_t seed, std::string_view name, float mean, float stddev);

}  // namespace nsim::kernels
