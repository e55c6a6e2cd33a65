// The forward pass of BertForSequenceClassification for a training step: the inference program's
// kernels (device embedding gathers, feature_major_linear, token_major_linear, layer_norm,
// self_attention) in a schedule that keeps what the backward reads (encoder_layer_backward's
// EncoderLayerSaved, the head's [CLS] rows and pooled output, the embedding sum) instead of
// overwriting it as inference does:
//   Q^T, K^T, V^T feature-major with their biases (feature_major_linear), and token-major copies by
//     tensor-engine transposes; attention gets V with its bias already in (a zero value bias);
//   the context transposed to token-major; the pre-norm sums (x + dense + bias) kept, layernorm run
//     on a copy of them (layer_norm writes in place); the FFN's pre-GELU activations feature-major
//     with GELU applied by the scalar engine into a second tensor, both transposed to token-major.
// Every kept tensor is its own on-chip buffer (a small model: 2 layers x 128 hidden x 32 tokens is
// tens of KiB per partition); a large model would spill them to device memory (not built).
#pragma once

#include "device/attention_kernel.h"
#include "device/layer_norm_kernel.h"
#include "device/linear_kernels.h"
#include "train/encoder_layer_backward.h"
#include "train/training_parameters.h"

namespace nsim::kernels::train {

// One layer's kept activations (token-major [tokens, features] unless named _t: feature-major).
struct LayerActivationTiles {
    TileSet x, x_t, q, k, q_t, k_t, v_t, context, attention_sum, attended, intermediate_in, intermediate, output_sum;
    EncoderLayerSaved saved() const;
};

struct ForwardTiles {
    TileSet embedding_sum;                    // word + position + token type, before layernorm
    std::vector<LayerActivationTiles> layers;
    TileSet output, output_t;                 // the encoder's output, both layouts
    TileSet cls, pooled;                      // [batch, hidden]: the first tokens, tanh(pooler)
    TileSet logits;                           // [batch, labels] fp32
};

struct ForwardInputs {
    uint32_t input_ids = 0, token_types = 0;  // int32 [batch, seq] tensors in device memory
    device::AttentionShape shape;
    float layer_norm_eps = 1e-12f;
};

// `attention` holds the mask (device::build_attention_mask) and the softmax's scratch.
ForwardTiles training_forward(KernelContext& ctx, builder::DmaChannel& channel, const TrainedBert& model,
                              const ForwardInputs& in, device::AttentionScratch& attention);

}  // namespace nsim::kernels::train
