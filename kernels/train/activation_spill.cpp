#include "train/activation_spill.h"

#include <stdexcept>

#include "train/dram_tiles.h"

namespace nsim::kernels::train {

bool is_spilled_activation(const std::string& name) { return name.rfind(kSpilledActivationsPrefix, 0) == 0; }

void ActivationSpill::store(KernelContext& ctx, uint32_t layer, const LayerActivationTiles& a) {
    if (layers_.size() <= layer) layers_.resize(layer + 1);
    std::vector<Kept>& kept = layers_[layer];
    for (size_t i = 0; i < std::size(kKeptActivations); ++i) {
        const TileSet& set = a.*kKeptActivations[i];
        if (kept.size() <= i) {
            const std::string name = kSpilledActivationsPrefix + std::string("layer.") + std::to_string(layer) + "/" + std::to_string(i);
            kept.push_back({program_.add_tensor(name, isa::TensorRole::Scratch, set.dtype, {set.rows, set.columns}), set.rows,
                            set.columns, set.dtype});
        }
        const Kept& k = kept[i];
        if (k.rows != set.rows || k.columns != set.columns || k.dtype != set.dtype)
            throw std::logic_error("ActivationSpill: a layer's activations changed shape between passes");
        store_tiles(ctx, channels_, set, {k.tensor, k.dtype, k.columns, 0, 0});
    }
}

LayerActivationTiles ActivationSpill::load(KernelContext& ctx, uint32_t layer) const {
    if (layer >= layers_.size()) throw std::logic_error("ActivationSpill: a layer that was not stored");
    LayerActivationTiles a;
    for (size_t i = 0; i < std::size(kKeptActivations); ++i) {
        const Kept& k = layers_[layer][i];
        TileSet& set = a.*kKeptActivations[i];
        set = device::allocate_tiles(ctx.core, k.rows, k.columns, k.dtype, "reloaded activation");
        load_tiles(ctx, channels_, {k.tensor, k.dtype, k.columns, 0, 0}, set);
    }
    return a;
}

}  // namespace nsim::kernels::train
