// Reference gradients of BertForPreTraining's loss (masked LM + next sentence, dropout off) with
// respect to every parameter, in fp32 tensors with double sums: the encoder's forward and backward of
// bert_backward.h, the next-sentence head (pooler + 2-way classifier: next_sentence_head_gradients),
// and the masked-LM head, written out here as Hugging Face has it: the predicted tokens' rows of the
// encoder output, transform = LayerNorm(GELU(x W_t^T + b_t)), logits = transform E^T + b over the
// vocabulary with E the word embeddings (tied, so the decoder's gradient adds into the word table's),
// cross-entropy averaged over the predicted tokens (CrossEntropyLoss with ignore_index). This is what
// a device pretraining step's gradients are compared with (issue 15, Done-when item 1).
#pragma once

#include "reference/bert_backward.h"

namespace nsim::kernels::reference {

// One micro-batch's pretraining labels: per sequence `per_sequence` prediction slots, each a position
// in the sequence and the token id there before masking (-1: an unused slot); per sequence the
// next-sentence label (0: the second segment follows the first, 1: it is random).
struct PretrainingLabels {
    size_t per_sequence = 0;
    std::vector<int32_t> positions, tokens;  // batch * per_sequence
    std::vector<int32_t> next_sentence;      // batch
};

// weights: with embeddings and pretraining heads (std::invalid_argument otherwise). loss = masked-LM
// mean + next-sentence mean.
BertGradients bert_pretraining_gradients(const BertWeights& weights, const TokenBatch& tokens,
                                         const PretrainingLabels& labels);

}  // namespace nsim::kernels::reference
