// Backward of one BERT encoder layer (post-LayerNorm, as device/bert_program.cpp runs it) on the
// device, chaining the backward kernels from the layer's output gradient to its input's:
//   LN2 -> output dense -> GELU -> intermediate dense -> (+ residual) -> LN1 -> attention output dense
//   -> attention (dQ, dK, dV) -> Q, K, V dense -> (+ residual) = dx
// The forward's activations it reads are on chip (saved by the forward, or given by a test), or
// loaded by the block that reads them (EncoderLayerSaved::source), the feed-forward block's a chunk
// of tokens at a time (EncoderLayerSaved::chunk_tokens); the attention gradients come out
// feature-major and are transposed for the Q/K/V weight gradients.
// With dropout, each dense whose output the forward dropped gets the gradient with the same mask
// applied (the residual's share keeps it whole), and attention_backward drops as the forward did.
// Every dtype is the program's matmul dtype except the parameter gradients (fp32, what AdamW reads).
#pragma once

#include "device/attention_kernel.h"
#include "train/dropout.h"
#include "train/gradient_sink.h"

namespace nsim::kernels::train {

// Where a layer's backward gets a saved activation that is its shape alone, no tiles (spilled to
// device memory by the forward: SpilledLayer): loaded by the block that reads it, into SBUF that is
// the block's (given back when the block is done).
class SavedActivationSource {
public:
    virtual ~SavedActivationSource() = default;
    // Rows [first_row, + rows) of `saved` (one of its layer's EncoderLayerSaved; a feature-major one's
    // rows are its features) into new on-chip tiles.
    virtual TileSet load(KernelContext& ctx, const TileSet& saved, uint32_t first_row, uint32_t rows) const = 0;
};

struct EncoderLayerSaved {
    const TileSet *x, *q, *k;                 // token-major [tokens, hidden]
    const TileSet *q_t, *k_t, *v_t;            // feature-major [hidden, tokens]
    const TileSet *context, *attention_sum, *attended;   // token-major [tokens, hidden]
    // token-major [tokens, intermediate]; the backward overwrites intermediate_in's tiles (with its gradient)
    const TileSet *intermediate_in, *intermediate;
    const TileSet *output_sum;                           // token-major [tokens, hidden]
    // Of the activations without tiles: null when all are on chip. The linears' inputs (x, context,
    // attended, intermediate) are never loaded: only a sink that makes their weight gradients from
    // device memory takes them so (DeferredWeightGradients).
    const SavedActivationSource* source = nullptr;
    // The feed-forward block's backward over this many tokens at a time, each chunk's rows of the
    // pre-GELU values loaded (when they come from `source`), its d intermediate [chunk, intermediate]
    // (0: the pass's tokens at once). Whole partition tiles that divide the pass's tokens.
    uint32_t chunk_tokens = 0;
};

struct EncoderLayerParameters {
    // W [out, in] in device memory: the layout dX = dY W streams.
    device::DramMatrix query, key, value, attention_output, intermediate, output;
    builder::Buffer attention_gamma_row, output_gamma_row;  // fp32 [partitions, hidden], broadcast
    float layer_norm_eps = 1e-12f;
    builder::Buffer mask;  // fp32 [partitions, tokens], as device::build_attention_mask makes it
    LayerDropout dropout;  // the forward's (its masks applied again to the gradients); off by default
};

struct LinearGradientTiles {
    TileSet weight, bias;  // [out, in], [1, out] fp32
};
struct NormGradientTiles {
    TileSet gamma, beta;  // [1, hidden] fp32
};
struct EncoderLayerGradientTiles {
    TileSet input;  // dL/dx, token-major, matmul dtype
    LinearGradientTiles query, key, value, attention_output, intermediate, output;
    NormGradientTiles attention_norm, output_norm;
};

// A layer's parameters in the order a training step numbers them (bert_tensor_slots' order).
enum LayerParameter : uint32_t {
    kQueryWeight, kQueryBias, kKeyWeight, kKeyBias, kValueWeight, kValueBias, kAttentionOutputWeight,
    kAttentionOutputBias, kAttentionNormGamma, kAttentionNormBeta, kIntermediateWeight, kIntermediateBias,
    kOutputWeight, kOutputBias, kOutputNormGamma, kOutputNormBeta, kLayerParameters
};

// dy: the gradient of the layer's output, token-major in the matmul dtype. Every parameter's
// gradient goes into `sink` (as parameter first_parameter + LayerParameter) as soon as it is made,
// dL/dx into `dx` [tokens, hidden] (matmul dtype).
void encoder_layer_backward(KernelContext& ctx, const device::AttentionShape& shape, const EncoderLayerSaved& saved,
                            const EncoderLayerParameters& params, const TileSet& dy, GradientSink& sink,
                            uint32_t first_parameter, TileSet& dx);

// The same into whole on-chip TileSets.
EncoderLayerGradientTiles encoder_layer_backward(KernelContext& ctx, const device::AttentionShape& shape,
                                                 const EncoderLayerSaved& saved, const EncoderLayerParameters& params,
                                                 const TileSet& dy);

}  // namespace nsim::kernels::train
