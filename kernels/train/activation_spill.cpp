#include "train/activation_spill.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "train/dram_tiles.h"

namespace nsim::kernels::train {

bool is_spilled_activation(const std::string& name) { return name.rfind(kSpilledActivationsPrefix, 0) == 0; }

// A pass's [r, c] TileSet of an activation goes at rows [pass * r, + r) of its tensor: token-major
// ones at their tokens' rows, feature-major ones (q^T, k^T, v^T) one block of features after another.
void ActivationSpill::store(KernelContext& ctx, uint32_t layer, const LayerActivationTiles& a, uint32_t first_token) {
    if (layers_.size() <= layer) layers_.resize(layer + 1);
    std::vector<DramTensor>& kept = layers_[layer];
    pass_tokens_ = a.x.rows;
    if (pass_tokens_ == 0 || tokens_ % pass_tokens_ != 0 || first_token % pass_tokens_ != 0 || first_token >= tokens_)
        throw std::logic_error("ActivationSpill: passes that do not tile the micro-batch");
    const uint32_t passes = tokens_ / pass_tokens_, pass = first_token / pass_tokens_;
    for (size_t i = 0; i < std::size(kKeptActivations); ++i) {
        const TileSet& set = a.*kKeptActivations[i];
        if (kept.size() <= i) {
            const std::string name = kSpilledActivationsPrefix + std::string("layer.") + std::to_string(layer) + "/" + std::to_string(i);
            const uint32_t rows = set.rows * passes;
            kept.push_back({program_.add_tensor(name, isa::TensorRole::Scratch, set.dtype, {rows, set.columns}), rows,
                            set.columns, set.dtype});
        }
        const DramTensor& k = kept[i];
        if (k.rows != set.rows * passes || k.columns != set.columns || k.dtype != set.dtype)
            throw std::logic_error("ActivationSpill: a layer's activations changed shape between passes");
        store_tiles(ctx, channels_, set, {k.tensor, k.dtype, k.columns, pass * set.rows, 0});
    }
}

LayerActivationTiles ActivationSpill::load(KernelContext& ctx, uint32_t layer, uint32_t first_token,
                                           bool linear_inputs) const {
    if (layer >= layers_.size()) throw std::logic_error("ActivationSpill: a layer that was not stored");
    const uint32_t passes = tokens_ / pass_tokens_, pass = first_token / pass_tokens_;
    LayerActivationTiles a;
    for (size_t i = 0; i < std::size(kKeptActivations); ++i) {
        const DramTensor& k = layers_[layer][i];
        TileSet& set = a.*kKeptActivations[i];
        const uint32_t rows = k.rows / passes;
        if (!linear_inputs && std::count(std::begin(kLinearInputs), std::end(kLinearInputs), kKeptActivations[i])) {
            set.rows = rows;
            set.columns = k.columns;
            set.dtype = k.dtype;
            set.tile_rows = device::partition_tile_rows(ctx.core.spec());
            continue;
        }
        set = device::allocate_tiles(ctx.core, rows, k.columns, k.dtype, "reloaded activation");
        load_tiles(ctx, channels_, {k.tensor, k.dtype, k.columns, pass * rows, 0}, set);
    }
    return a;
}

DramTensor ActivationSpill::tensor(uint32_t layer, TileSet LayerActivationTiles::*which) const {
    const auto* found = std::find(std::begin(kKeptActivations), std::end(kKeptActivations), which);
    if (layer >= layers_.size() || found == std::end(kKeptActivations))
        throw std::logic_error("ActivationSpill: an activation that was not stored");
    return layers_[layer][size_t(found - std::begin(kKeptActivations))];
}

}  // namespace nsim::kernels::train
