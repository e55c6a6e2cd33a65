// The reference forward pass of BertForSequenceClassification in fp32 (dropout off), batched, with each
// stage's output kept so a device run can be compared stage by stage.
#pragma once

#include <vector>

#include "bert/bert_weights.h"
#include "bert/token_batch.h"

namespace nsim::kernels::reference {

struct BertForwardResult {
    Tensor embeddings;      // [batch * seq, hidden], the input of layer 0
    std::vector<Tensor> layer_outputs;  // one [batch * seq, hidden] per layer; back() is the encoder output
    Tensor pooled;          // [batch, hidden]
    Tensor logits;          // [batch, num_labels]
};

// From embedding-layer outputs (host-side embedding, or a test vector): embeddings [batch * seq, hidden],
// attention_mask [batch * seq] of 1/0.
BertForwardResult bert_forward_from_embeddings(const BertWeights& weights, Tensor embeddings,
                                               const std::vector<int32_t>& attention_mask, size_t batch, size_t seq);

// From token ids; the weights must include the embeddings (std::invalid_argument otherwise).
BertForwardResult bert_forward(const BertWeights& weights, const TokenBatch& tokens);

}  // namespace nsim::kernels::reference
