#include "train/deferred_weight_gradients.h"

#include <algorithm>
#include <stdexcept>

#include "train/activation_spill.h"

namespace nsim::kernels::train {

using device::Range;
using device::split;

namespace {
// Columns of the streamed operand per chunk: 2 KiB rows of bf16 (DMABW: >= 2 KiB per partition row),
// two PSUM banks of fp32 columns per chunk.
constexpr uint32_t kChunkBanks = 2;
constexpr uint32_t kChunkSlots = 2;  // the next chunk loads while the last one is contracted
}  // namespace

void DeferredWeightGradients::linear(KernelContext& ctx, const TileSet& x, const TileSet& dy, uint32_t weight,
                                     uint32_t bias, LinearSlice at) {
    const auto input = inputs_.find(weight);
    const uint32_t pass_rows = input == inputs_.end() ? 0 : input->second.x.rows / passes_;
    if (input == inputs_.end() || input->second.x.columns != x.columns || at.first_token + dy.rows > pass_rows)
        throw std::logic_error("DeferredWeightGradients: a linear whose input is not in device memory");
    auto found = std::find_if(deferred_.begin(), deferred_.end(), [&](const Deferred& d) { return d.weight == weight; });
    if (found == deferred_.end()) {
        const DramTensor& in = input->second.x;
        const uint32_t outputs = input->second.outputs ? input->second.outputs : dy.columns;
        const std::string name = kSpilledActivationsPrefix + std::string("dy/") + std::to_string(weight);
        const uint32_t tensor = program_.add_tensor(name, isa::TensorRole::Scratch, dy.dtype, {in.rows, outputs});
        deferred_.push_back({weight, bias, in, {tensor, in.rows, outputs, dy.dtype}});
        found = deferred_.end() - 1;
    }
    const DramTensor& t = found->dy;
    if (at.first_output + dy.columns > t.columns || dy.dtype != t.dtype)
        throw std::logic_error("DeferredWeightGradients: a pass's dy outside its tensor");
    store_tiles(ctx, channels_, dy, {t.tensor, t.dtype, t.columns, pass_ * pass_rows + at.first_token, at.first_output});
}

void DeferredWeightGradients::store_pass_rows(KernelContext& ctx, const TileSet& set, const DramTensor& tensor) const {
    if ((pass_ + 1) * set.rows > tensor.rows || set.columns != tensor.columns)
        throw std::logic_error("DeferredWeightGradients: a pass's rows outside their tensor");
    store_tiles(ctx, channels_, set, {tensor.tensor, tensor.dtype, tensor.columns, pass_ * set.rows, 0});
}

uint32_t DeferredWeightGradients::group_rows(KernelContext& ctx, const Deferred& d) const {
    const uint32_t tile = device::partition_tile_rows(ctx.core.spec());
    const uint32_t chunk = kChunkBanks * sums_.block_columns();
    // Bytes per partition per tile of rows: the held operand, the chunks, ones.
    const uint64_t per_tile =
        uint64_t(std::min(d.x.columns, d.dy.columns) + kChunkSlots * chunk + 1) * isa::size_in_bytes(d.dy.dtype);
    const uint64_t total = ctx.core.spec().sbuf.bytes_per_partition, used = ctx.core.sbuf_used();
    // What the builder may round allocations up by, and contract_tokens' own scratch.
    const uint64_t reserve = 4096;
    const uint64_t free = total > used + reserve ? total - used - reserve : 0;
    const uint64_t tiles = free / per_tile;
    if (tiles == 0) throw std::length_error("DeferredWeightGradients: SBUF cannot hold one token tile of a weight gradient");
    return uint32_t(std::min<uint64_t>(d.x.rows, tiles * tile));
}

void DeferredWeightGradients::finish(KernelContext& ctx, bool first) {
    const bool was_first = sums_.first();
    const uint64_t mark = ctx.core.sbuf_mark();
    for (const Deferred& d : deferred_) {
        const uint32_t group = group_rows(ctx, d);
        for (uint32_t r = 0; r < d.x.rows; r += group) {
            sums_.set_first(first && r == 0);
            make(ctx, d, r, std::min(group, d.x.rows - r));
            ctx.core.sbuf_rewind(mark);
        }
    }
    sums_.set_first(was_first);
}

// dW [out, in] = dy^T x and db = 1^T dy over rows (tokens) [first_token, + tokens): the narrower of
// dy and x whole on chip, the wider in chunks of columns; each block accumulates every token tile in
// PSUM.
void DeferredWeightGradients::make(KernelContext& ctx, const Deferred& d, uint32_t first_token, uint32_t tokens) {
    if (d.x.dtype != d.dy.dtype) throw std::logic_error("DeferredWeightGradients: x and dy in different dtypes");
    const isa::DType dtype = d.dy.dtype;
    const uint32_t out = d.dy.columns, in = d.x.columns;
    const bool hold_dy = out <= in;
    const DramTensor& held = hold_dy ? d.dy : d.x;
    const DramTensor& streamed = hold_dy ? d.x : d.dy;
    TileSet h = device::allocate_tiles(ctx.core, tokens, held.columns, dtype, "deferred gradient operand");
    load_tiles(ctx, channels_, {held.tensor, dtype, held.columns, first_token, 0}, h);
    const uint32_t bank = sums_.block_columns(), chunk = kChunkBanks * bank;
    const uint32_t stationary = std::min(h.tile_rows, ctx.max_stationary());
    TileSet slots[kChunkSlots];
    for (TileSet& slot : slots)
        slot = device::allocate_tiles(ctx.core, tokens, std::min(chunk, streamed.columns), dtype, "deferred gradient chunk");
    TileSet ones;
    if (d.bias != kNoParameter) ones = ones_column(ctx, tokens, dtype);
    // One block of a gradient: rows m x columns n of a^T b, at (row, column) of the parameter.
    auto block = [&](uint32_t parameter, const TileSet& a, const TileSet& b, Range m, Range n, uint32_t row,
                     uint32_t column) {
        TileSet g = sums_.begin(parameter, row, column, m.size, n.size);
        contract_tokens(ctx, a, b, g, m, n);
        sums_.end(parameter, g, row, column);
    };
    if (hold_dy && d.bias != kNoParameter)
        for (const Range n : split(out, bank)) block(d.bias, ones, h, Range{0, 1}, n, 0, n.begin);
    const std::vector<Range> chunks = split(streamed.columns, chunk);
    for (uint32_t c = 0; c < chunks.size(); ++c) {
        const Range cr = chunks[c];
        TileSet s = slots[c % kChunkSlots];
        s.columns = cr.size;  // the last chunk may be narrower
        load_tiles(ctx, channels_, {streamed.tensor, dtype, streamed.columns, first_token, cr.begin}, s);
        if (hold_dy) {
            for (const Range m : split(out, stationary))
                for (const Range n : split(cr.size, bank)) block(d.weight, h, s, m, n, m.begin, cr.begin + n.begin);
            continue;
        }
        for (const Range m : split(cr.size, stationary))
            for (const Range n : split(in, bank)) block(d.weight, s, h, m, n, cr.begin + m.begin, n.begin);
        if (d.bias != kNoParameter)
            for (const Range n : split(cr.size, bank)) block(d.bias, ones, s, Range{0, 1}, n, 0, cr.begin + n.begin);
    }
}

}  // namespace nsim::kernels::train
