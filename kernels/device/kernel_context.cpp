#include "device/kernel_context.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nsim::kernels::device {
namespace {

uint32_t tile_rows_of(const CoreBuilder& core) { return partition_tile_rows(core.spec()); }

}  // namespace

uint32_t partition_tile_rows(const config::NeuronCoreSpec& spec) {
    return std::min({spec.sbuf.partitions, spec.tensor.max_contraction, spec.tensor.max_stationary_free});
}

std::vector<Range> split(uint32_t n, uint32_t tile) {
    std::vector<Range> out;
    for (uint32_t b = 0; b < n; b += tile) out.push_back({b, std::min(tile, n - b)});
    return out;
}

uint32_t TileSet::rows_of(uint32_t tile) const { return std::min(tile_rows, rows - tile * tile_rows); }

View TileSet::view(uint32_t tile, uint32_t c0, uint32_t count) const {
    return builder::tile(tiles.at(tile), dtype, 0, rows_of(tile), c0, count);
}

View TileSet::view(uint32_t tile, uint32_t p0, uint32_t np, uint32_t c0, uint32_t count) const {
    return builder::tile(tiles.at(tile), dtype, p0, np, c0, count);
}

uint64_t tile_set_bytes(const CoreBuilder& core, uint32_t rows, uint32_t columns, isa::DType dtype) {
    const uint32_t tr = tile_rows_of(core);
    return uint64_t((rows + tr - 1) / tr) * columns * isa::size_in_bytes(dtype);
}

TileSet allocate_tiles(CoreBuilder& core, uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what) {
    TileSet t;
    t.rows = rows;
    t.columns = columns;
    t.tile_rows = tile_rows_of(core);
    t.dtype = dtype;
    for (uint32_t r = 0, i = 0; r < rows; r += t.tile_rows, ++i)
        t.tiles.push_back(core.sbuf(uint64_t(columns) * isa::size_in_bytes(dtype), what + "[" + std::to_string(i) + "]"));
    return t;
}

TileSet alias_tiles(CoreBuilder& core, const Buffer& region, uint64_t offset, uint32_t rows, uint32_t columns,
                    isa::DType dtype) {
    TileSet t;
    t.rows = rows;
    t.columns = columns;
    t.tile_rows = tile_rows_of(core);
    t.dtype = dtype;
    const uint64_t bytes = uint64_t(columns) * isa::size_in_bytes(dtype);
    for (uint32_t r = 0; r < rows; r += t.tile_rows, offset += bytes) t.tiles.push_back(core.sbuf_alias(region, offset, bytes));
    return t;
}

View ColumnParams::column(uint32_t tile, uint32_t rows) const {
    return builder::tile(buffer, isa::DType::Fp32, 0, rows, first + tile, 1);
}

WeightRing::WeightRing(CoreBuilder& core, uint32_t slots, uint32_t slot_columns, isa::DType dtype,
                       uint32_t first_queue_class)
    : core_(core), slot_columns_(slot_columns), dtype_(dtype) {
    for (uint32_t s = 0; s < slots; ++s) {
        slots_.push_back(core.sbuf(uint64_t(slot_columns) * isa::size_in_bytes(dtype), "weight slot " + std::to_string(s)));
        channels_.push_back(&core.dma_channel("weights" + std::to_string(s), first_queue_class + s));
    }
}

View WeightRing::load(const DramMatrix& matrix, Range rows, uint32_t column, uint32_t columns) {
    if (columns > slot_columns_ || rows.size > core_.spec().sbuf.partitions)
        throw std::logic_error("a weight block larger than a weight slot");
    const uint32_t s = next_++ % uint32_t(slots_.size());
    const View dst = builder::tile(slots_[s], dtype_, 0, rows.size, 0, columns);
    const View src = builder::dram(builder::dram_rows(matrix.tensor, matrix.dtype,
                                                      matrix.row_length ? matrix.row_length : matrix.columns,
                                                      matrix.first_row + rows.begin, rows.size,
                                                      matrix.first_column + column, columns));
    core_.dma(*channels_[s], CoreBuilder::split_rows(dst, src, uint32_t(channels_[s]->queues().size())));
    return dst;
}

DramMatrix DramMatrix::window(Range row_range, Range column_range) const {
    if (interleave) throw std::logic_error("a window of an interleaved weight matrix");
    if (row_range.begin + row_range.size > rows || column_range.begin + column_range.size > columns)
        throw std::logic_error("a window outside its matrix");
    DramMatrix w = *this;
    w.rows = row_range.size;
    w.columns = column_range.size;
    w.first_row += row_range.begin;
    w.first_column += column_range.begin;
    w.row_length = row_length ? row_length : columns;
    return w;
}

Range DramMatrix::panel_of(uint32_t column) const {
    const uint32_t width = interleave && panel_columns ? std::min(panel_columns, columns) : columns;
    const uint32_t begin = column / width * width;
    return {begin, std::min(width, columns - begin)};
}

std::vector<Range> DramMatrix::blocks(uint32_t widest) const {
    std::vector<Range> out;
    for (uint32_t c = 0; c < columns;) {
        const Range panel = panel_of(c);
        for (const Range& b : split(panel.size, widest)) out.push_back({panel.begin + b.begin, b.size});
        c = panel.end();
    }
    return out;
}

uint64_t DramMatrix::element_offset(uint32_t row, uint32_t column) const {
    if (!interleave) throw std::logic_error("element_offset of a row-major weight matrix");
    const Range panel = panel_of(column);
    const uint32_t k_tiles = rows / interleave;
    const uint64_t stored_row = uint64_t(row % interleave) * k_tiles + row / interleave;
    return uint64_t(rows) * panel.begin + stored_row * panel.size + (column - panel.begin);
}

// Each row's part in a panel is one run.
std::vector<float> lay_out(const DramMatrix& layout, const std::vector<float>& row_major) {
    if (row_major.size() != size_t(layout.rows) * layout.columns) throw std::logic_error("lay_out: values of another shape");
    std::vector<float> v(row_major.size());
    for (uint32_t k = 0; k < layout.rows; ++k)
        for (uint32_t c = 0; c < layout.columns;) {
            const Range panel = layout.panel_of(c);
            std::copy_n(row_major.begin() + size_t(k) * layout.columns + panel.begin, panel.size,
                        v.begin() + layout.element_offset(k, panel.begin));
            c = panel.end();
        }
    return v;
}

uint32_t WeightRing::tiles_per_slot(const DramMatrix& matrix, uint32_t columns) const {
    return matrix.interleave && columns ? std::max<uint32_t>(1, slot_columns_ / columns) : 1;
}

// rows: the first k-tile's rows (the others follow it, as many).
WeightBlock WeightRing::load_tiles(const DramMatrix& matrix, Range rows, uint32_t tiles, uint32_t column, uint32_t columns) {
    const WeightBlock block{slots_[next_ % uint32_t(slots_.size())], dtype_, columns};
    if (!matrix.interleave) {
        if (tiles != 1) throw std::logic_error("several k-tiles of a row-major weight matrix in one block");
        load(matrix, rows, column, columns);
        return block;
    }
    const uint32_t t = matrix.interleave, k_tiles = matrix.rows / t;
    if (uint64_t(tiles) * columns > slot_columns_ || rows.size != t || rows.begin % t != 0 || rows.begin / t + tiles > k_tiles)
        throw std::logic_error("a weight block of k-tiles outside the matrix or larger than a weight slot");
    const Range panel = matrix.panel_of(column);
    if (column + columns > panel.end()) throw std::logic_error("a weight block across column panels");
    const uint32_t s = next_++ % uint32_t(slots_.size());
    const View dst = builder::tile(slots_[s], dtype_, 0, t, 0, tiles * columns);
    isa::AccessPattern src;
    src.space = isa::MemorySpace::Dram;
    src.dtype = matrix.dtype;
    src.tensor = matrix.tensor;
    src.partition_count = t;
    src.partition_stride = int32_t(uint64_t(k_tiles) * panel.size);
    src.offset = matrix.element_offset(rows.begin, column) * isa::size_in_bytes(matrix.dtype);
    src.dim_count = 2;
    src.dims[0] = {int32_t(panel.size), tiles};
    src.dims[1] = {1, columns};
    core_.dma(*channels_[s], CoreBuilder::split_rows(dst, builder::dram(src), uint32_t(channels_[s]->queues().size())));
    return block;
}

View WeightBlock::part(uint32_t tile, uint32_t rows, uint32_t column, uint32_t count) const {
    return builder::tile(buffer, dtype, 0, rows, uint64_t(tile) * columns + column, count);
}

PsumRing::PsumRing(CoreBuilder& core, uint32_t first_bank, uint32_t banks) : first_(first_bank), banks_(banks) {
    if (banks == 0 || first_bank + banks > core.psum_banks()) throw std::logic_error("PSUM ring outside the banks");
}

uint32_t PsumRing::next_bank() { return first_ + next_++ % banks_; }

View psum_tile(CoreBuilder& core, uint32_t bank, uint32_t rows, uint32_t first_element, uint32_t elements,
               uint32_t p0) {
    const uint32_t granule = uint32_t(core.psum_bank_bytes() / 4 / CoreBuilder::kPsumGranules);
    const uint32_t g0 = first_element / granule;
    const uint32_t g1 = (first_element + elements + granule - 1) / granule;
    const Buffer b = core.psum(bank, g0, g1 - g0);
    return builder::tile(b, isa::DType::Fp32, p0, rows, first_element - g0 * granule, elements);
}

}  // namespace nsim::kernels::device
