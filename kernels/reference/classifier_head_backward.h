// Reference gradients of the sequence-classification head (classifier_head.h) given dL/dlogits:
// classifier dense, tanh, pooler dense, and the pooler input's gradient scattered back to each
// sequence's first ([CLS]) token; every other token gets zero from the head.
#pragma once

#include "bert/bert_weights.h"
#include "reference/linear_backward.h"

namespace nsim::kernels::reference {

struct ClassifierHeadGradients {
    Tensor hidden;  // [batch * seq, hidden]
    LinearGradients pooler, classifier;  // their .input is the gradient of the dense's input
};

// hidden [batch * seq, hidden] (the encoder's output), dlogits [batch, num_labels].
ClassifierHeadGradients classifier_head_backward(const Tensor& hidden, const LinearWeights& pooler,
                                                 const LinearWeights& classifier, const Tensor& dlogits, size_t batch,
                                                 size_t seq);

}  // namespace nsim::kernels::reference
