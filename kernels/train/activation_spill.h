// The device-memory home of the activations a training step's forward keeps for its backward, when
// SBUF cannot hold them (BERT-base at micro-batch 8 x seq 128 keeps 216 KiB per partition per
// layer; SBUF has 192): the forward stores each layer's as soon as the layer is done and gives its
// SBUF to the next layer; the backward loads them back, one layer at a time - what the Neuron
// compiler's spilling does. One tensor per kept activation and layer (Scratch, no contents), reused
// by every pass and micro-step; a tensor's stores and loads go over one DMA channel (TensorChannels),
// whose transfers complete in order, so a load never overtakes the store it reads, nor a store the
// load of the pass before.
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
    ActivationSpill(builder::ProgramBuilder& program, const TensorChannels& channels)
        : program_(program), channels_(channels) {}
    // Layer `layer`'s kept activations (LayerActivationTiles::saved) into device memory.
    void store(KernelContext& ctx, uint32_t layer, const LayerActivationTiles& a);
    // Back into new on-chip TileSets of the same shapes (x_t, which the backward does not read, stays empty).
    LayerActivationTiles load(KernelContext& ctx, uint32_t layer) const;

private:
    struct Kept {
        uint32_t tensor = 0, rows = 0, columns = 0;
        isa::DType dtype = isa::DType::Fp32;
    };
    builder::ProgramBuilder& program_;
    const TensorChannels& channels_;
    std::vector<std::vector<Kept>> layers_;  // by layer, by kKeptActivations
};

}  // namespace nsim::kernels::train
