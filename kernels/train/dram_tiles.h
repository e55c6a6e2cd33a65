// Whole TileSets to and from blocks of row-major tensors in device memory, one transfer per set
// spread over the channel's queues, on one DMA channel (a channel's transfers complete in order, which is what keeps a store and a later
// load of the same tensor - neither tracked by the builder - in order). The tensor's dtype may differ
// from the tiles' (the DMA converts).
#pragma once

#include "device/kernel_context.h"

namespace nsim::kernels::train {

// Rows [first_row, first_row + set rows) x columns [first_column, first_column + set columns) of
// `tensor`, whose rows hold `row_length` elements of `dtype`.
struct DramBlock {
    uint32_t tensor = 0;
    isa::DType dtype = isa::DType::Fp32;
    uint32_t row_length = 0;
    uint32_t first_row = 0, first_column = 0;
};

// A whole row-major tensor [rows, columns] of `dtype` in device memory.
struct DramTensor {
    uint32_t tensor = 0, rows = 0, columns = 0;
    isa::DType dtype = isa::DType::Fp32;
};

void load_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const DramBlock& from, device::TileSet& set);
void store_tiles(device::KernelContext& ctx, builder::DmaChannel& channel, const device::TileSet& set, const DramBlock& to);

// DMA channels the transfers of device-memory tensors are spread over: each tensor's always on the
// same channel (so a load never overtakes an earlier store of the same tensor), different tensors'
// side by side, each paying its fixed DMA cost while the others move data.
class TensorChannels {
public:
    explicit TensorChannels(std::vector<builder::DmaChannel*> channels) : channels_(std::move(channels)) {}
    builder::DmaChannel& of(uint32_t tensor) const { return *channels_[tensor % channels_.size()]; }

private:
    std::vector<builder::DmaChannel*> channels_;
};

inline void load_tiles(device::KernelContext& ctx, const TensorChannels& channels, const DramBlock& from,
                       device::TileSet& set) {
    load_tiles(ctx, channels.of(from.tensor), from, set);
}
inline void store_tiles(device::KernelContext& ctx, const TensorChannels& channels, const device::TileSet& set,
                        const DramBlock& to) {
    store_tiles(ctx, channels.of(to.tensor), set, to);
}

}  // namespace nsim::kernels::train
