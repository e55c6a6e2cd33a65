// Reference sequence-classification head: the pooler (dense + tanh on each sequence's [CLS] token) and
// the classifier dense that turns it into logits.
#pragma once

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

// hidden [batch * seq, hidden] -> the first token of each sequence, [batch, hidden].
Tensor first_token_rows(const Tensor& hidden, size_t batch, size_t seq);
// [batch * seq, hidden] -> tanh(cls W^T + b), [batch, hidden].
Tensor pooler(const Tensor& hidden, const LinearWeights& w, size_t batch, size_t seq);
// [batch, hidden] -> [batch, num_labels].
Tensor classifier(const Tensor& pooled, const LinearWeights& w);

}  // namespace nsim::kernels::reference
