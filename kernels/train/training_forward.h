// The forward pass of BertForSequenceClassification for a training step: the inference program's
// kernels (device embedding gathers, feature_major_linear, token_major_linear, layer_norm,
// self_attention) in a schedule that keeps what the backward reads (encoder_layer_backward's
// EncoderLayerSaved, the head's [CLS] rows and pooled output, the embedding sum) instead of
// overwriting it as inference does:
//   Q^T, K^T, V^T feature-major with their biases (feature_major_linear), and token-major copies by
//     tensor-engine transposes; attention gets V with its bias already in (a zero value bias);
//   the context transposed to token-major; the pre-norm sums (x + dense + bias) kept, layernorm run
//     on a copy of them (layer_norm writes in place); the FFN's pre-GELU activations feature-major,
//     transposed to token-major, then GELU'd in place by the scalar engine and transposed again.
// With dropout (ForwardInputs::dropout, train/dropout.h): the embeddings' output is dropped
// token-major and transposed again for x^T; each residual dense's output is made in a tile of its
// own, dropped, then added to the residual; the attention probabilities are dropped in
// self_attention. What is kept is what the backward reads: the dropped layer input, the undropped
// pre-norm sums (they include the dropped dense outputs).
// Every kept tensor is its own on-chip buffer. Kept on chip (a small model: 2 layers x 128 hidden x
// 32 tokens is tens of KiB per partition), or, with an ActivationSpill, stored to device memory as
// soon as its layer is done, the layer's SBUF then going to the next one (its input and output stay
// on chip in two buffers the layers take in turn), and each encoder layer's on-chip parameter copies
// loaded when it runs (with_on_chip_rows).
#pragma once

#include "device/attention_kernel.h"
#include "device/layer_norm_kernel.h"
#include "device/linear_kernels.h"
#include "train/dropout.h"
#include "train/encoder_layer_backward.h"
#include "train/training_parameters.h"

namespace nsim::kernels::train {

// One layer's kept activations (token-major [tokens, features] unless named _t: feature-major).
struct LayerActivationTiles {
    TileSet x, x_t, q, k, q_t, k_t, v_t, context, attention_sum, attended, intermediate_in, intermediate, output_sum;
    EncoderLayerSaved saved() const;
};
// What the backward reads of them (all but x_t), in the order an ActivationSpill stores them.
inline constexpr TileSet LayerActivationTiles::*kKeptActivations[] = {
    &LayerActivationTiles::x, &LayerActivationTiles::q, &LayerActivationTiles::k, &LayerActivationTiles::q_t,
    &LayerActivationTiles::k_t, &LayerActivationTiles::v_t, &LayerActivationTiles::context,
    &LayerActivationTiles::attention_sum, &LayerActivationTiles::attended, &LayerActivationTiles::intermediate_in,
    &LayerActivationTiles::intermediate, &LayerActivationTiles::output_sum};
// The linears' inputs among them: what only the weight gradients read (dx = dy W needs their shapes).
inline constexpr TileSet LayerActivationTiles::*kLinearInputs[] = {
    &LayerActivationTiles::x, &LayerActivationTiles::context, &LayerActivationTiles::attended,
    &LayerActivationTiles::intermediate};

class ActivationSpill;

// The masked-LM head's forward up to the decoder, over the predicted positions ([predictions, hidden]
// token-major unless _t): the gathered encoder output, the dense's output before and after GELU, the
// LayerNorm's output (the decoder's input; masked_lm_head.h takes it from there).
struct MaskedLmTiles {
    TileSet masked, transform_in, transform_out, transformed, transformed_t;
};

struct ForwardTiles {
    TileSet embedding_sum;                    // word + position + token type, before layernorm
    std::vector<LayerActivationTiles> layers;  // empty when spilled
    TileSet output, output_t;                 // the encoder's output, both layouts
    TileSet cls, pooled;                      // [batch, hidden]: the first tokens, tanh(pooler)
    TileSet logits;                           // [batch, labels] fp32
    // With a spill, the forward's SBUF from spare_mark on (the carries but `spare`, the head's tiles)
    // is read by the heads' backward at most (the softmax's ring and the layernorm scratch are the
    // layers', given back with theirs); below it: the embedding sum (the embedding layernorm's
    // backward reads it, last) and `spare`, the carry the output is not in (token-major; layer L-1's
    // input, free after the last layer: a step puts the encoder output's gradient there).
    TileSet spare;
    uint64_t spare_mark = 0;
};

struct ForwardInputs {
    uint32_t input_ids = 0, token_types = 0;  // int32 [rows, seq] tensors in device memory
    uint32_t first_row = 0;                   // the first of their rows this forward reads (shape.batch of them)
    ActivationSpill* spill = nullptr;         // where the layers' activations go; null: kept on chip
    // With a spill: the FFN over this many tokens at a time, each chunk's activations stored as made
    // (TrainingOptions::chunk_tokens; 0: the pass's tokens at once).
    uint32_t chunk_tokens = 0;
    device::AttentionShape shape;
    float layer_norm_eps = 1e-12f;
    TrainingDropout dropout;  // off by default
};

// `attention` holds the mask (device::build_attention_mask) and the softmax's scratch.
ForwardTiles training_forward(KernelContext& ctx, builder::DmaChannel& channel, const TrainedBert& model,
                              const ForwardInputs& in, device::AttentionScratch& attention);

// The masked-LM head's forward up to the decoder from the encoder's output (ForwardTiles::output):
// the predicted rows gathered feature-major by a matmul with prediction_onehot ([tokens,
// predictions], 1 where token t is prediction p's: masked^T = output^T onehot), then dense + GELU
// and LayerNorm as BertPredictionHeadTransform has them. A step runs it when its backward reaches the
// head, so that these tiles hold SBUF only while the head's backward needs them.
MaskedLmTiles masked_lm_transform(KernelContext& ctx, builder::DmaChannel& channel, const TrainedBert& model,
                                  const ForwardInputs& in, device::AttentionScratch& attention, const TileSet& output,
                                  const TileSet& prediction_onehot);

}  // namespace nsim::kernels::train
