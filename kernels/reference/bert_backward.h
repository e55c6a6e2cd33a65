// Reference gradients of BertForSequenceClassification's loss (the mean softmax cross-entropy of the
// logits against the labels; dropout off) with respect to every parameter: the forward pass again,
// keeping what backward needs, then the backward of each piece (*_backward.h) from the loss down to
// the embedding tables, in fp32 tensors with double sums. This is the whole-model reference a device
// training step's gradients are compared with (issue 15, Done-when item 1); it is checked itself
// against finite differences of the forward reference (bert_backward_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "bert/bert_weights.h"
#include "bert/token_batch.h"

namespace nsim::kernels::reference {

// What one encoder layer's backward needs of its forward (all [batch * seq, features]).
struct EncoderLayerActivations {
    Tensor x;                 // the layer's input
    Tensor q, k, v;           // projections, biases included
    Tensor context;           // attention output before the output projection
    Tensor attention_sum;     // context Wo^T + bo + x, before the first layernorm
    Tensor attended;          // after it
    Tensor intermediate_in;   // attended W1^T + b1, before GELU
    Tensor intermediate;      // after it
    Tensor output_sum;        // intermediate W2^T + b2 + attended, before the second layernorm
};
// mask_bias from attention_mask_bias().
EncoderLayerActivations encoder_layer_activations(const Tensor& x, const BertLayerWeights& w, const BertConfig& config,
                                                  const Tensor& mask_bias, size_t batch, size_t seq);
// dy: the gradient of the layer's output. Fills `gradients` (the layer's parameters' layout) and
// returns the gradient of the layer's input.
Tensor encoder_layer_backward(const EncoderLayerActivations& a, const BertLayerWeights& w, const BertConfig& config,
                              const Tensor& mask_bias, const Tensor& dy, size_t batch, size_t seq,
                              BertLayerWeights& gradients);

struct BertGradients {
    double loss = 0;
    BertWeights weights;  // every tensor holds dL/d(that parameter), in the parameters' layout
};

// weights must include the embeddings and use the erf GELU (std::invalid_argument otherwise); one
// label in [0, num_labels) per sequence.
BertGradients bert_classification_gradients(const BertWeights& weights, const TokenBatch& tokens,
                                            const std::vector<int32_t>& labels);

}  // namespace nsim::kernels::reference
