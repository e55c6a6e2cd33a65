#include "train/activation_spill.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "train/dram_tiles.h"

namespace nsim::kernels::train {

bool is_spilled_activation(const std::string& name) { return name.rfind(kSpilledActivationsPrefix, 0) == 0; }

// A pass's [r, c] TileSet of an activation goes at rows [pass * r, + r) of its tensor: token-major
// ones at their tokens' rows, feature-major ones (q^T, k^T, v^T) one block of features after another.
const DramTensor& ActivationSpill::kept(uint32_t layer, size_t i, uint32_t rows, uint32_t columns, isa::DType dtype) {
    if (layers_.size() <= layer) layers_.resize(layer + 1);
    std::vector<DramTensor>& kept = layers_[layer];
    kept.resize(std::size(kKeptActivations));
    DramTensor& k = kept[i];
    if (k.rows == 0) {
        const std::string name = kSpilledActivationsPrefix + std::string("layer.") + std::to_string(layer) + "/" + std::to_string(i);
        k = {program_.add_tensor(name, isa::TensorRole::Scratch, dtype, {rows, columns}), rows, columns, dtype};
    }
    if (k.rows != rows || k.columns != columns || k.dtype != dtype)
        throw std::logic_error("ActivationSpill: a layer's activations changed shape between passes");
    return k;
}

void ActivationSpill::store(KernelContext& ctx, uint32_t layer, const LayerActivationTiles& a, uint32_t first_token) {
    for (TileSet LayerActivationTiles::*which : kKeptActivations) store_one(ctx, layer, which, a.*which, first_token);
}

void ActivationSpill::store_one(KernelContext& ctx, uint32_t layer, TileSet LayerActivationTiles::*which,
                                const TileSet& set, uint32_t first_token) {
    const bool feature_major = which == &LayerActivationTiles::q_t || which == &LayerActivationTiles::k_t ||
                               which == &LayerActivationTiles::v_t;
    pass_tokens_ = feature_major ? set.columns : set.rows;
    if (pass_tokens_ == 0 || tokens_ % pass_tokens_ != 0 || first_token % pass_tokens_ != 0 || first_token >= tokens_)
        throw std::logic_error("ActivationSpill: passes that do not tile the micro-batch");
    const uint32_t passes = tokens_ / pass_tokens_, pass = first_token / pass_tokens_;
    const DramTensor& k = kept(layer, index_of(which), set.rows * passes, set.columns, set.dtype);
    if (!set.tiles.empty()) store_tiles(ctx, channels_, set, {k.tensor, k.dtype, k.columns, pass * set.rows, 0});
}

void ActivationSpill::store_rows(KernelContext& ctx, uint32_t layer, TileSet LayerActivationTiles::*which,
                                 const TileSet& set, uint32_t first_token) {
    if (first_token + set.rows > tokens_) throw std::logic_error("ActivationSpill: rows outside the micro-batch");
    const DramTensor& k = kept(layer, index_of(which), tokens_, set.columns, set.dtype);
    store_tiles(ctx, channels_, set, {k.tensor, k.dtype, k.columns, first_token, 0});
}

size_t ActivationSpill::index_of(TileSet LayerActivationTiles::*which) {
    const auto* found = std::find(std::begin(kKeptActivations), std::end(kKeptActivations), which);
    if (found == std::end(kKeptActivations)) throw std::logic_error("ActivationSpill: an activation it does not keep");
    return size_t(found - std::begin(kKeptActivations));
}

LayerActivationTiles ActivationSpill::shapes(const KernelContext& ctx, uint32_t layer) const {
    if (layer >= layers_.size()) throw std::logic_error("ActivationSpill: a layer that was not stored");
    const uint32_t passes = tokens_ / pass_tokens_;
    LayerActivationTiles a;
    for (size_t i = 0; i < std::size(kKeptActivations); ++i) {
        const DramTensor& k = layers_[layer][i];
        TileSet& set = a.*kKeptActivations[i];
        set.rows = k.rows / passes;
        set.columns = k.columns;
        set.dtype = k.dtype;
        set.tile_rows = device::partition_tile_rows(ctx.core.spec());
    }
    return a;
}

TileSet ActivationSpill::load_rows(KernelContext& ctx, uint32_t layer, TileSet LayerActivationTiles::*which,
                                   uint32_t first_token, uint32_t first_row, uint32_t rows) const {
    if (layer >= layers_.size()) throw std::logic_error("ActivationSpill: a layer that was not stored");
    const DramTensor& k = layers_[layer][index_of(which)];
    const uint32_t passes = tokens_ / pass_tokens_, pass = first_token / pass_tokens_, pass_rows = k.rows / passes;
    if (first_row + rows > pass_rows) throw std::logic_error("ActivationSpill: rows outside a pass's activation");
    TileSet set = device::allocate_tiles(ctx.core, rows, k.columns, k.dtype, "reloaded activation");
    load_tiles(ctx, channels_, {k.tensor, k.dtype, k.columns, pass * pass_rows + first_row, 0}, set);
    return set;
}

DramTensor ActivationSpill::tensor(uint32_t layer, TileSet LayerActivationTiles::*which) const {
    if (layer >= layers_.size()) throw std::logic_error("ActivationSpill: an activation that was not stored");
    return layers_[layer][index_of(which)];
}

void SpilledLayer::load_all(KernelContext& ctx) {
    for (TileSet LayerActivationTiles::*which : kKeptActivations) {
        TileSet& set = shapes_.*which;
        const bool linear_input = std::count(std::begin(kLinearInputs), std::end(kLinearInputs), which) > 0;
        if (!linear_input) set = spill_.load_rows(ctx, layer_, which, first_token_, 0, set.rows);
    }
}

EncoderLayerSaved SpilledLayer::saved() const {
    EncoderLayerSaved s = shapes_.saved();
    s.source = this;
    return s;
}

TileSet SpilledLayer::load(KernelContext& ctx, const TileSet& saved, uint32_t first_row, uint32_t rows) const {
    for (TileSet LayerActivationTiles::*which : kKeptActivations)
        if (&(shapes_.*which) == &saved) return spill_.load_rows(ctx, layer_, which, first_token_, first_row, rows);
    throw std::logic_error("SpilledLayer: an activation of another layer");
}

}  // namespace nsim::kernels::train
