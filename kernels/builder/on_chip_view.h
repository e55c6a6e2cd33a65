// On-chip buffers (SBUF/PSUM regions a kernel allocates) and views into them (an access pattern
// that remembers which buffer it touches, so the program builder can derive the synchronisation).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "isa/access_pattern.h"

namespace nsim::kernels::builder {

// A region of SBUF or PSUM: partitions [partition_start, +partitions), bytes [offset, +bytes) of each.
struct Buffer {
    uint32_t id = UINT32_MAX;
    isa::MemorySpace space = isa::MemorySpace::None;
    uint32_t partition_start = 0;
    uint32_t partitions = 0;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    uint32_t psum_bank = UINT32_MAX;  // PSUM buffers: the bank they lie in
};

// An operand: the access pattern and the buffer it lies in (none for DRAM/host tensors).
// `partial` marks a write that fills a part of the buffer no other write since the last read
// touched, so it need not wait for those writes (e.g. evacuations of different columns).
struct View {
    Buffer buffer;
    isa::AccessPattern ap;
    bool partial = false;

    View part() const {
        View v = *this;
        v.partial = true;
        return v;
    }
};

// Elements [first, first + count) of partitions [p0, p0 + np) of `b` (relative to the buffer).
View tile(const Buffer& b, isa::DType dtype, uint32_t p0, uint32_t np, uint64_t first, uint32_t count);
// The same with explicit free dimensions {stride, count}, outermost first.
View tile_dims(const Buffer& b, isa::DType dtype, uint32_t p0, uint32_t np, uint64_t first,
               std::initializer_list<isa::Dim> dims);

// Rows [row, row + rows) x columns [column, column + columns) of a row-major DRAM tensor whose rows
// hold `row_length` elements. row_stride 0 repeats one row (a broadcast over partitions).
isa::AccessPattern dram_rows(uint32_t tensor, isa::DType dtype, uint64_t row_length, uint64_t row, uint32_t rows,
                             uint64_t column, uint32_t columns, int32_t row_stride = -1);
View dram(const isa::AccessPattern& ap);

}  // namespace nsim::kernels::builder
