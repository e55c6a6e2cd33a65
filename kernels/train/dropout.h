// Dropout in a training step, where Hugging Face's BertModel has it (hidden_dropout_prob on the
// embeddings' output and on each attention-output and FFN-output dense's output before its residual
// add; attention_probs_dropout_prob on the attention probabilities), with the vector engine's dropout
// instruction (opcodes.def): the backward issues the same instruction - same key, same rows - on the
// incoming gradient, so it applies the forward's mask without any mask in memory.
//
// Which mask an element gets: the key names the site (layer, site, head: dropout_key),
// the rows are the micro-batch's tokens (rows of token-major tiles, queries of the attention
// probabilities) numbered from the micro-batch's first token, and the elements are the row's features
// (attention: the keys, numbered within the sequence). So a mask depends on neither the pass a token
// runs in nor the tile it sits in. The execution comes from the generator's state (set_rng_seed),
// which the program keeps in device memory and advances every time one of its micro-step graphs
// runs: each micro-step is an execution of its own (training_step.h), so it draws its own masks.
#pragma once

#include "device/attention_kernel.h"
#include "train/tile_products.h"

namespace nsim::kernels::train {

enum class DropoutSite : uint32_t { EmbeddingOutput = 0, AttentionOutput = 1, FfnOutput = 2, AttentionProbabilities = 3 };

// (layer * 4 + site) * 256 + head: heads of one site take consecutive keys.
uint32_t dropout_key(uint32_t layer, DropoutSite site, uint32_t head = 0);

// One encoder layer's dropout (both passes read it; probabilities 0: none).
struct LayerDropout {
    float hidden = 0;
    uint32_t attention_output_key = 0, ffn_output_key = 0;
    uint32_t first_token = 0;  // the number of the tiles' first row
    device::AttentionDropout attention;
};

// A pass's dropout: the probabilities and the pass's first token in its micro-batch.
struct TrainingDropout {
    float hidden = 0, attention = 0;
    uint32_t first_token = 0;
    bool on() const { return hidden > 0 || attention > 0; }
    LayerDropout layer(uint32_t layer) const;
    uint32_t embedding_key() const { return dropout_key(0, DropoutSite::EmbeddingOutput); }
};

// dst = dropout(src) tile by tile (token-major, the same tiling; dst may be src), row r of tile k
// numbered first_token + k * tile_rows + r. Nothing when probability is 0 and dst is src.
void dropout_tokens(KernelContext& ctx, const TileSet& src, TileSet& dst, float probability, uint32_t key,
                    uint32_t first_token);

// The generator's state: int32 [1, 2] (seed, execution) in device memory, a Scratch tensor that
// starts at (seed, 0). seed_dropout_generator loads it, seeds the vector engine's generator from it
// (before any dropout the program issues later on that engine) and stores it back with the execution
// advanced by one, for the next execution (exact below 2^24 executions: the add runs in fp32).
inline constexpr const char* kDropoutGeneratorTensor = "dropout generator";
void seed_dropout_generator(KernelContext& ctx, builder::ProgramBuilder& program, builder::DmaChannel& channel,
                            uint32_t seed);

}  // namespace nsim::kernels::train
