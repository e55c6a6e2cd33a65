// Reference gradients of BertForSequenceClassification's loss (the mean softmax cross-entropy of the
// logits against the labels; dropout off, or with given masks: dropout_mask.h) with respect to every parameter: the forward pass again,
// keeping what backward needs, then the backward of each piece (*_backward.h) from the loss down to
// the embedding tables, in fp32 tensors with double sums. This is the whole-model reference a device
// training step's gradients are compared with (issue 15, Done-when item 1); it is checked itself
// against finite differences of the forward reference (bert_backward_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "bert/bert_weights.h"
#include "bert/token_batch.h"
#include "reference/dropout_mask.h"

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
// dropout: the layer's masks (null: none): the attention probabilities' and each residual dense
// output's, as Hugging Face's BertSelfAttention, BertSelfOutput and BertOutput drop them.
EncoderLayerActivations encoder_layer_activations(const Tensor& x, const BertLayerWeights& w, const BertConfig& config,
                                                  const Tensor& mask_bias, size_t batch, size_t seq,
                                                  const LayerDropoutMasks* dropout = nullptr);
// dy: the gradient of the layer's output. Fills `gradients` (the layer's parameters' layout) and
// returns the gradient of the layer's input.
Tensor encoder_layer_backward(const EncoderLayerActivations& a, const BertLayerWeights& w, const BertConfig& config,
                              const Tensor& mask_bias, const Tensor& dy, size_t batch, size_t seq,
                              BertLayerWeights& gradients, const LayerDropoutMasks* dropout = nullptr);

struct BertGradients {
    double loss = 0;
    BertWeights weights;  // every tensor holds dL/d(that parameter), in the parameters' layout
};

// The encoder's forward from the tokens, keeping what its backward needs.
struct BertEncoderForward {
    Tensor mask;           // attention_mask_bias
    Tensor embedding_sum;  // word + position + token type, before the embedding layernorm
    std::vector<EncoderLayerActivations> layers;
    Tensor output;         // [batch * seq, hidden]
};
// std::invalid_argument for weights without embeddings or with another GELU than erf.
// dropout: masks for the embeddings' output and every layer (null: none).
BertEncoderForward bert_encoder_forward(const BertWeights& weights, const TokenBatch& tokens,
                                        const EncoderDropoutMasks* dropout = nullptr);
// From dx, the gradient of the encoder's output: the layers' and embeddings' gradients into
// `gradients` (dropout: the forward's masks).
void bert_encoder_backward(const BertWeights& weights, const TokenBatch& tokens, const BertEncoderForward& forward,
                           Tensor dx, BertWeights& gradients, const EncoderDropoutMasks* dropout = nullptr);
// The pooler + classifier head's loss (mean cross-entropy over sequences; a BertForPreTraining's
// next-sentence head is the same) and gradients, in gradients shaped like `weights` (all else zero);
// dx gets the encoder output's gradient from it.
BertGradients next_sentence_head_gradients(const BertWeights& weights, const BertEncoderForward& forward,
                                           const TokenBatch& tokens, const std::vector<int32_t>& labels, Tensor& dx);

// weights must include the embeddings and use the erf GELU (std::invalid_argument otherwise); one
// label in [0, num_labels) per sequence.
BertGradients bert_classification_gradients(const BertWeights& weights, const TokenBatch& tokens,
                                            const std::vector<int32_t>& labels,
                                            const EncoderDropoutMasks* dropout = nullptr);

}  // namespace nsim::kernels::reference
