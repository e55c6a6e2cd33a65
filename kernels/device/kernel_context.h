// What every hand-scheduled kernel of the BERT program shares on one core: the instruction writer,
// the ring of SBUF slots weights stream through, the ring of PSUM banks, the data types, the tile
// limits of the generation (from configs/), and the on-chip tensors they pass to each other.
#pragma once

#include <cstdint>
#include <vector>

#include "builder/core_builder.h"
#include "device/precision.h"

namespace nsim::kernels::device {

inline uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

using builder::Buffer;
using builder::CoreBuilder;
using builder::View;

struct Range {
    uint32_t begin = 0, size = 0;
    uint32_t end() const { return begin + size; }
};
// Rows of a partition tile: the partitions every engine and a matmul's operands share
// (min of SBUF partitions, max_contraction, max_stationary_free of the generation).
uint32_t partition_tile_rows(const config::NeuronCoreSpec& spec);

// [0, n) cut into consecutive ranges of at most `tile`.
std::vector<Range> split(uint32_t n, uint32_t tile);

// A 2-D on-chip tensor [rows, columns] cut along its rows into partition tiles: tile i holds rows
// [i * tile_rows, ...) on partitions 0.. and all columns. Feature-major activations (features on
// partitions, tokens along the free axis: what a matmul contracts over) and token-major ones
// (tokens on partitions: what layernorm and softmax reduce along) are both TileSets.
struct TileSet {
    std::vector<Buffer> tiles;
    uint32_t rows = 0, columns = 0, tile_rows = 0;
    isa::DType dtype = isa::DType::Fp32;

    uint32_t rows_of(uint32_t tile) const;
    // Rows of tile `tile` (all, or [p0, p0 + np)) x columns [c0, c0 + count).
    View view(uint32_t tile, uint32_t c0, uint32_t count) const;
    View view(uint32_t tile, uint32_t p0, uint32_t np, uint32_t c0, uint32_t count) const;
};
TileSet allocate_tiles(CoreBuilder& core, uint32_t rows, uint32_t columns, isa::DType dtype, const std::string& what);
// A TileSet whose tiles are aliases inside `region` from byte `offset` on (tiles back to back).
TileSet alias_tiles(CoreBuilder& core, const Buffer& region, uint64_t offset, uint32_t rows, uint32_t columns,
                    isa::DType dtype);
uint64_t tile_set_bytes(const CoreBuilder& core, uint32_t rows, uint32_t columns, isa::DType dtype);

// Per-partition fp32 parameters loaded as columns: column `first + i` holds, for tile i of a
// feature-major tensor, the parameter of feature i * tile_rows + p on partition p.
struct ColumnParams {
    Buffer buffer;
    uint32_t first = 0;
    View column(uint32_t tile, uint32_t rows) const;
};

// A matrix in device memory (weights are stored transposed, [in, out]), row-major, or with its rows
// interleaved by k-tile: with `interleave` = t (the partition tile), row k is stored as row
// (k % t) * (rows / t) + k / t, so the rows one partition takes from successive k-tiles are adjacent
// and a block of several k-tiles loads as one long run per partition row (DMABW: >= 2 KiB per
// partition, 4 KiB to saturate). An interleaved matrix is also cut into column panels of
// `panel_columns` (0: one panel, the whole width; the last panel may be narrower), stored one after
// another, each [rows, its width] interleaved: the weight block a kernel loads is chosen before the
// weights are written (the kernels' *_block_columns), so each block is a whole panel and one run per
// partition row however narrow PSUM makes it (NC-v1: 256 columns).
// A row-major matrix may also be a window of a larger one (window(): rows and columns of it, as the
// vocabulary-sized decoder of a masked-LM head streams its tied word embeddings a chunk at a time).
struct DramMatrix {
    uint32_t tensor = 0;
    uint32_t rows = 0, columns = 0;
    isa::DType dtype = isa::DType::Fp32;
    uint32_t interleave = 0;  // 0: row-major
    uint32_t first_row = 0, first_column = 0, row_length = 0;  // in the tensor; row_length 0: columns
    uint32_t panel_columns = 0;  // interleaved only; 0: one panel
    DramMatrix window(Range row_range, Range column_range) const;
    // The panel holding column `column`.
    Range panel_of(uint32_t column) const;
    // [0, columns) cut into blocks of at most `widest` columns, none across a panel: whole panels when
    // they are no wider.
    std::vector<Range> blocks(uint32_t widest) const;
    // Element offset of (row, column) in the tensor, as the layout stores it (interleaved only).
    uint64_t element_offset(uint32_t row, uint32_t column) const;
};

// The values of an interleaved matrix given row-major ([rows, columns]) in `layout`'s order.
std::vector<float> lay_out(const DramMatrix& layout, const std::vector<float>& row_major);

// K-tiles of a weight matrix loaded side by side into one weight slot, `columns` wide each.
struct WeightBlock {
    Buffer buffer;
    isa::DType dtype = isa::DType::None;
    uint32_t columns = 0;
    // Rows [0, rows) x columns [column, column + count) of the block's k-tile `tile`.
    View part(uint32_t tile, uint32_t rows, uint32_t column, uint32_t count) const;
};

// SBUF slots the weight blocks stream through, each loaded by its own DMA channel split over every
// DMA engine; a slot is reloaded once every matmul that read it has finished.
class WeightRing {
public:
    WeightRing(CoreBuilder& core, uint32_t slots, uint32_t slot_columns, isa::DType dtype, uint32_t first_queue_class);
    uint32_t slot_columns() const { return slot_columns_; }
    // rows x [column, column + columns) of `matrix` into the next slot; the view of it.
    View load(const DramMatrix& matrix, Range rows, uint32_t column, uint32_t columns);
    // K-tiles [first_tile, first_tile + tiles) of `matrix` (its `interleave` rows each, or `rows` rows
    // for one tile of a row-major matrix) x [column, column + columns), in one DMA, into the next slot.
    WeightBlock load_tiles(const DramMatrix& matrix, Range rows, uint32_t tiles, uint32_t column, uint32_t columns);
    // How many k-tiles `columns` wide one slot holds (1 for a row-major matrix: its k-tiles are apart).
    uint32_t tiles_per_slot(const DramMatrix& matrix, uint32_t columns) const;

private:
    CoreBuilder& core_;
    std::vector<Buffer> slots_;
    std::vector<builder::DmaChannel*> channels_;
    uint32_t slot_columns_;
    isa::DType dtype_;
    uint32_t next_ = 0;
};

// PSUM banks handed out round robin; a bank is written again only after its readers finished
// (the builder's tracking makes the tensor engine wait).
class PsumRing {
public:
    PsumRing(CoreBuilder& core, uint32_t first_bank, uint32_t banks);
    uint32_t banks() const { return banks_; }
    uint32_t next_bank();

private:
    uint32_t first_, banks_, next_ = 0;
};

// A [rows, elements] fp32 region of PSUM bank `bank`, `elements` columns starting at column
// `first_element`, whole granules.
View psum_tile(CoreBuilder& core, uint32_t bank, uint32_t rows, uint32_t first_element, uint32_t elements,
               uint32_t p0 = 0);

struct KernelContext {
    CoreBuilder& core;
    WeightRing& weights;
    PsumRing& psum;
    DtypePlan dtypes;

    uint32_t partitions() const { return core.spec().sbuf.partitions; }
    uint32_t max_contraction() const { return core.spec().tensor.max_contraction; }
    uint32_t max_stationary() const { return core.spec().tensor.max_stationary_free; }
    uint32_t max_moving() const { return core.spec().tensor.max_moving_free; }
    uint32_t bank_fp32_elements() const { return uint32_t(core.psum_bank_bytes() / 4); }
    uint32_t granule_fp32_elements() const { return bank_fp32_elements() / CoreBuilder::kPsumGranules; }
    // The engine for SBUF-only element-wise work that need not be on the vector engine: GpSimd where
    // the core has one (NC-v2 and later), else the vector engine.
    isa::Engine side_engine() const { return core.has_engine(isa::Engine::Pool) ? isa::Engine::Pool : isa::Engine::Dve; }
};

}  // namespace nsim::kernels::device
