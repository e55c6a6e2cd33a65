// The masked-LM head of BertForPreTraining on the device, from the transform's output at the
// predicted positions (training_forward's MaskedLmTiles) to its loss and every gradient it makes:
//   decoder   logits = transformed E^T + b over the vocabulary, E the word embeddings (tied): E^T
//             streams a chunk of `vocabulary_chunk` columns at a time (a vocabulary's logits do not
//             fit a partition's SBUF: 30522 fp32 are 119 KiB), the logits made twice per chunk:
//   loss      first sweep: ChunkedCrossEntropy's online max and sum of exponentials, weighted by
//             prediction (1/(masked tokens), 0 for an unused slot) - HF's mean over the labelled tokens
//   backward  second sweep, per chunk: dz, then dE rows += dz^T transformed and db += 1^T dz into the
//             sink (the word table's rows the chunk covers; GradientSink::linear: at once, or later
//             over every pass's predictions), dtransformed += dz E_chunk (dz transposed,
//             the rows of E as the streaming weights);
//             then LayerNorm, GELU and the transform dense backward (layer_norm_backward,
//             gelu_backward, linear_parameter_gradients / linear_backward), and the predicted rows'
//             gradient scattered back to their tokens (embedding_backward with the positions as ids).
#pragma once

#include "train/gradient_sink.h"
#include "train/training_forward.h"

namespace nsim::kernels::train {

struct MaskedLmHeadInputs {
    const MaskedLmTiles* forward = nullptr;
    const TrainedMaskedLmHead* head = nullptr;
    device::DramMatrix word_table;    // [vocab, hidden]: the decoder's weight
    const TileSet* labels = nullptr;     // [predictions, 1] fp32 token ids; -1: an unused slot
    const TileSet* weights = nullptr;    // [predictions, 1] fp32: each prediction's share of the loss
    const TileSet* positions = nullptr;  // [predictions, 1] fp32: the token (in the pass) it predicts
    builder::Buffer class_row;           // fp32 0, 1, ... on every partition, >= vocabulary_chunk wide
    builder::Buffer index_row;           // fp32 0, 1, ..., >= one token tile wide (embedding_backward)
    uint32_t vocabulary_chunk = 1024;
    float layer_norm_eps = 1e-12f;
};

// The sink's parameter numbers of the head's gradients (the decoder's weight is the word table's).
struct MaskedLmParameters {
    uint32_t word = 0, transform_weight = 0, transform_bias = 0, norm_gamma = 0, norm_beta = 0, decoder_bias = 0;
};

// loss: fp32 [1, 1]; d_hidden [tokens, hidden] (matmul dtype): the encoder output's gradient from the
// head (zero but at predicted tokens), stored. The decoder bias's chunks are read over `channel`.
void masked_lm_head(KernelContext& ctx, builder::DmaChannel& channel, const MaskedLmHeadInputs& in,
                    const MaskedLmParameters& parameters, GradientSink& sink, TileSet& loss, TileSet& d_hidden);

}  // namespace nsim::kernels::train
