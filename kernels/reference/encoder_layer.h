// Reference BERT encoder layer (post-LayerNorm): attention, output projection, residual + LayerNorm,
// feed-forward with the configured activation, residual + LayerNorm.
#pragma once

#include "bert/bert_weights.h"

namespace nsim::kernels::reference {

// LayerNorm(dense(x) + residual): the "output" block after attention and after the feed-forward.
Tensor projection_residual_layer_norm(const Tensor& x, const LinearWeights& dense, const Tensor& residual,
                                      const LayerNormWeights& norm, double eps);

// act(x W1^T + b1): the FFN's first half, [tokens, intermediate].
Tensor feed_forward_intermediate(const Tensor& x, const LinearWeights& intermediate, HiddenActivation act);

// x [batch * seq, hidden] -> the layer's output, same shape. mask_bias from attention_mask_bias().
Tensor encoder_layer(const Tensor& x, const BertLayerWeights& w, const BertConfig& config, const Tensor& mask_bias,
                     size_t batch, size_t seq);

}  // namespace nsim::kernels::reference
