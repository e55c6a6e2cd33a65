// The device-memory home of the activations a training step's forward keeps for its backward, when
// SBUF cannot hold them (BERT-base at micro-batch 8 x seq 128 keeps 216 KiB per partition per
// layer; SBUF has 192): the forward stores each layer's as soon as the layer is done and gives its
// SBUF to the next layer; the backward loads each back in the block of its layer's backward that
// reads it (SpilledLayer), rows at a time where that block runs in chunks of tokens - what the Neuron
// compiler's spilling does. One tensor per kept activation and layer (Scratch, no contents) with
// room for every pass of the micro-batch, a token-major activation's pass at its tokens' rows (what
// the weight gradients, made once per micro-step over all its tokens, read back:
// DeferredWeightGradients), a feature-major one's passes one after another,
// reused by every micro-step; a tensor's stores and loads go over one DMA channel (TensorChannels),
// whose transfers complete in order, so a load never overtakes the store it reads, nor a store the
// load of the micro-step before.
#pragma once

#include "builder/program_builder.h"
#include "train/dram_tiles.h"
#include "train/training_forward.h"

namespace nsim::kernels::train {

// The names of the spill's tensors start with this (memory reports count them as activations).
inline constexpr const char* kSpilledActivationsPrefix = "activations/";
bool is_spilled_activation(const std::string& tensor_name);

class ActivationSpill {
public:
    // `tokens`: the micro-batch's (every pass's rows).
    ActivationSpill(builder::ProgramBuilder& program, const TensorChannels& channels, uint32_t tokens)
        : program_(program), channels_(channels), tokens_(tokens) {}
    // Layer `layer`'s kept activations (LayerActivationTiles::saved) of the pass whose first token is
    // `first_token` into device memory.
    // An activation the forward has stored already (store_one, store_rows) has no tiles in `a`, its shape alone.
    void store(KernelContext& ctx, uint32_t layer, const LayerActivationTiles& a, uint32_t first_token);
    // One of them, the pass's whole (feature-major ones: q^T, k^T, v^T, [features, pass tokens]).
    void store_one(KernelContext& ctx, uint32_t layer, TileSet LayerActivationTiles::*which, const TileSet& set,
                   uint32_t first_token);
    // Rows [first_token, + set rows) of a token-major activation of layer `layer` (a chunk of a pass's tokens).
    void store_rows(KernelContext& ctx, uint32_t layer, TileSet LayerActivationTiles::*which, const TileSet& set,
                    uint32_t first_token);
    // Layer `layer`'s kept activations of a pass as their shapes alone, no tiles (x_t, which the
    // backward does not read, empty): what a backward loads block by block (SpilledLayer).
    LayerActivationTiles shapes(const KernelContext& ctx, uint32_t layer) const;
    // Rows [first_row, + rows) of one of them, of the pass whose first token is `first_token`, into
    // new on-chip tiles (a feature-major one's rows are its features).
    TileSet load_rows(KernelContext& ctx, uint32_t layer, TileSet LayerActivationTiles::*which, uint32_t first_token,
                      uint32_t first_row, uint32_t rows) const;
    // The tensor that holds activation `which` of layer `layer` (stored already): [tokens, columns]
    // for a token-major one.
    DramTensor tensor(uint32_t layer, TileSet LayerActivationTiles::*which) const;

private:
    // Activation `which`'s index in kKeptActivations.
    static size_t index_of(TileSet LayerActivationTiles::*which);
    builder::ProgramBuilder& program_;
    const TensorChannels& channels_;
    // Activation i of layer `layer`'s tensor, made when first asked for ([rows, columns] of `dtype`).
    const DramTensor& kept(uint32_t layer, size_t i, uint32_t rows, uint32_t columns, isa::DType dtype);

    uint32_t tokens_, pass_tokens_ = 0;
    std::vector<std::vector<DramTensor>> layers_;  // by layer, by kKeptActivations
};

// One layer's spilled activations of one pass as a layer backward reads them: each loaded by the
// block that reads it, rows at a time (SavedActivationSource), the linears' inputs never (their
// weight gradients are made from device memory: DeferredWeightGradients).
class SpilledLayer : public SavedActivationSource {
public:
    SpilledLayer(const KernelContext& ctx, const ActivationSpill& spill, uint32_t layer, uint32_t first_token)
        : spill_(spill), layer_(layer), first_token_(first_token), shapes_(spill.shapes(ctx, layer)) {}
    SpilledLayer(const SpilledLayer&) = delete;
    SpilledLayer& operator=(const SpilledLayer&) = delete;
    // Every activation the backward reads but the linears' inputs into on-chip tiles now, the layer's
    // first thing (its loads run while the layer before finishes; where SBUF holds them all).
    void load_all(KernelContext& ctx);
    // The shapes (or the tiles load_all made), with this as their source.
    EncoderLayerSaved saved() const;
    TileSet load(KernelContext& ctx, const TileSet& saved, uint32_t first_row, uint32_t rows) const override;

private:
    const ActivationSpill& spill_;
    uint32_t layer_, first_token_;
    LayerActivationTiles shapes_;
};

}  // namespace nsim::kernels::train
