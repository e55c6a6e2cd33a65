// A training step's fp32 gradient sums in device memory (one tensor [rows, columns] per parameter,
// what optimizer_step reads), and the on-chip rooms gradients pass through on their way in. The
// step's first pass stores each block; later passes and micro-steps load the block's sum, add the
// block on the gpsimd engine and store it back. A sum's transfers all go over one DMA channel
// (TensorChannels), so a block's load never overtakes the store before it. Blocks come from the backward kernels as a
// GradientSink (rows of one partition tile x at most one PSUM bank of columns, or a whole vector),
// or as whole on-chip gradients (add: a head's, a table chunk's), tile by tile.
#pragma once

#include "train/dram_tiles.h"
#include "train/gradient_sink.h"
#include "train/training_parameters.h"

namespace nsim::kernels::train {

class GradientSums : public GradientSink {
public:
    // Adds the sums to `program`; the rooms (for gradients of up to `widest` columns a tile) are
    // placed in SBUF by place_rooms.
    GradientSums(KernelContext& ctx, builder::ProgramBuilder& program, const TensorChannels& channels,
                 const std::vector<ParameterTensors>& parameters, uint32_t widest);
    // The rooms, at the top of SBUF, for the gradients to come until SBUF is rewound below them
    // (a pass's backward, the micro-step's deferred gradients): what runs before (the forward)
    // has their SBUF. Place them again after such a rewind.
    void place_rooms();
    const std::vector<uint32_t>& tensors() const { return tensors_; }
    // The sums' tensors alone (what the optimizer graph reads), by parameter.
    static std::vector<uint32_t> add_tensors(builder::ProgramBuilder& program, const std::vector<ParameterTensors>& parameters);
    // Whether the gradients to come are the step's first of their parameters (stored, not added).
    void set_first(bool first) { first_ = first; }
    bool first() const { return first_; }

    uint32_t block_columns() const override { return block_columns_; }
    TileSet begin(uint32_t parameter, uint32_t first_row, uint32_t first_column, uint32_t rows, uint32_t columns) override;
    void end(uint32_t parameter, const TileSet& block, uint32_t first_row, uint32_t first_column) override;
    // Rows [first_row, + g rows) x columns [first_column, + g columns) of parameter `parameter`.
    void add(const TileSet& g, uint32_t parameter, uint32_t first_row, uint32_t first_column = 0);

private:
    static constexpr uint32_t kRooms = 4;  // blocks in flight: the next is made while the last ones move
    KernelContext& ctx_;
    const TensorChannels& channels_;
    std::vector<uint32_t> tensors_, row_lengths_;
    uint32_t block_columns_ = 0, room_columns_ = 0;
    builder::Buffer blocks_[kRooms], sums_[kRooms];
    uint32_t next_block_ = 0, next_sum_ = 0;
    bool first_ = true, placed_ = false;
};

}  // namespace nsim::kernels::train
