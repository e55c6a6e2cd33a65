#include "train/gradient_sums.h"

#include <algorithm>
#include <stdexcept>

#include "train/training_step.h"

namespace nsim::kernels::train {

GradientSums::GradientSums(KernelContext& ctx, builder::ProgramBuilder& program, const TensorChannels& channels,
                           const std::vector<ParameterTensors>& parameters, uint32_t widest)
    : ctx_(ctx), channels_(channels), tensors_(add_tensors(program, parameters)) {
    for (const ParameterTensors& p : parameters) row_lengths_.push_back(p.columns);
    block_columns_ = std::min(ctx.max_moving(), ctx.bank_fp32_elements());
    room_columns_ = std::max(block_columns_, widest);
}

void GradientSums::place_rooms() {
    placed_ = true;
    for (uint32_t i = 0; i < kRooms; ++i) {
        blocks_[i] = ctx_.core.sbuf_region(uint64_t(room_columns_) * 4, "gradient block");
        sums_[i] = ctx_.core.sbuf_region(uint64_t(block_columns_) * 4, "gradient sum block");
    }
}

std::vector<uint32_t> GradientSums::add_tensors(builder::ProgramBuilder& program, const std::vector<ParameterTensors>& parameters) {
    std::vector<uint32_t> tensors;
    for (const ParameterTensors& p : parameters)
        tensors.push_back(program.add_tensor(gradient_tensor(p.name), isa::TensorRole::Scratch, isa::DType::Fp32,
                                             {p.rows, p.columns}));
    return tensors;
}

TileSet GradientSums::begin(uint32_t, uint32_t, uint32_t, uint32_t rows, uint32_t columns) {
    if (!placed_) throw std::logic_error("GradientSums: a block before the rooms are placed");
    if (rows > device::partition_tile_rows(ctx_.core.spec()) || columns > room_columns_)
        throw std::logic_error("GradientSums: a block larger than its room");
    const builder::Buffer& room = blocks_[next_block_++ % kRooms];
    return device::alias_tiles(ctx_.core, room, 0, rows, columns, isa::DType::Fp32);
}

void GradientSums::end(uint32_t parameter, const TileSet& block, uint32_t first_row, uint32_t first_column) {
    add(block, parameter, first_row, first_column);
}

void GradientSums::add(const TileSet& g, uint32_t parameter, uint32_t first_row, uint32_t first_column) {
    if (!placed_) throw std::logic_error("GradientSums: a gradient before the rooms are placed");
    if (g.columns > room_columns_) throw std::logic_error("GradientSums: a gradient wider than the rooms");
    const DramBlock sums{tensors_.at(parameter), isa::DType::Fp32, row_lengths_[parameter], first_row, first_column};
    if (first_) {
        store_tiles(ctx_, channels_, g, sums);
        return;
    }
    // A tile's sum comes in, is added to and goes back a block of columns at a time.
    for (uint32_t t = 0; t < g.tiles.size(); ++t)
        for (const device::Range c : device::split(g.columns, block_columns_)) {
            const uint32_t rows = g.rows_of(t);
            TileSet sum = device::alias_tiles(ctx_.core, sums_[next_sum_++ % kRooms], 0, rows, c.size, isa::DType::Fp32);
            const DramBlock at{sums.tensor, sums.dtype, sums.row_length, sums.first_row + t * g.tile_rows,
                               sums.first_column + c.begin};
            load_tiles(ctx_, channels_, at, sum);
            ctx_.core.tensor_tensor(isa::Engine::Pool, sum.view(0, 0, c.size), sum.view(0, 0, c.size),
                                    g.view(t, c.begin, c.size), isa::AluOp::Add);
            store_tiles(ctx_, channels_, sum, at);
        }
}

}  // namespace nsim::kernels::train
