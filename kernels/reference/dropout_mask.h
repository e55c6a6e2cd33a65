// Dropout masks for the reference gradients, regenerated from the formula the simulator documents
// for its dropout instruction (sim/core/semantics/dropout_generator.h), implemented here on its own
// (no simulator code): splitmix64's finalizer h, stream = h((seed << 32) | execution), site =
// h(stream ^ key), bits = h(site ^ ((row << 32) | element)), keep = (bits >> 40) >= floor(p 2^24).
// A mask is returned as multipliers: 0 where dropped, float(1 / (1 - p)) where kept.
#pragma once

#include <cstdint>
#include <vector>

#include "bert/tensor.h"

namespace nsim::kernels::reference {

struct DropoutDraw {
    float probability = 0;
    uint32_t seed = 0, execution = 0;
};

// [rows, cols] multipliers: row r is row number first_row + r, element c its column.
Tensor dropout_multipliers(const DropoutDraw& draw, uint32_t key, uint32_t first_row, size_t rows, size_t cols);

// A whole encoder's masks (multipliers; an empty tensor: no dropout there), for
// bert_encoder_forward/backward: the embeddings' output [tokens, hidden]; per layer the attention
// probabilities [batch, heads, seq, seq] and the attention-output and FFN-output dense outputs
// [tokens, hidden].
struct LayerDropoutMasks {
    Tensor attention_probabilities, attention_output, ffn_output;
};
struct EncoderDropoutMasks {
    Tensor embedding_output;
    std::vector<LayerDropoutMasks> layers;
};

// x * multipliers, element by element (x itself when the multipliers are empty).
Tensor apply_dropout(const Tensor& x, const Tensor& multipliers);

}  // namespace nsim::kernels::reference
