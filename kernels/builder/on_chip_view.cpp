#include "builder/on_chip_view.h"

#include <stdexcept>
#include <string>

namespace nsim::kernels::builder {

View tile_dims(const Buffer& b, isa::DType dtype, uint32_t p0, uint32_t np, uint64_t first,
               std::initializer_list<isa::Dim> dims) {
    if (p0 + np > b.partitions || dims.size() == 0 || dims.size() > isa::kMaxFreeDims)
        throw std::logic_error("view outside its buffer's partitions");
    View v;
    v.buffer = b;
    isa::AccessPattern& ap = v.ap;
    ap.space = b.space;
    ap.dtype = dtype;
    ap.partition_start = b.partition_start + p0;
    ap.partition_count = np;
    ap.offset = b.offset + first * isa::size_in_bytes(dtype);
    ap.dim_count = uint8_t(dims.size());
    size_t d = 0;
    for (const isa::Dim& dim : dims) ap.dims[d++] = dim;
    if (ap.offset + (uint64_t(ap.max_free_index()) + 1) * isa::size_in_bytes(dtype) > b.offset + b.bytes)
        throw std::logic_error("view of " + std::to_string(ap.free_elements()) + " elements outside its buffer");
    return v;
}

View tile(const Buffer& b, isa::DType dtype, uint32_t p0, uint32_t np, uint64_t first, uint32_t count) {
    return tile_dims(b, dtype, p0, np, first, {isa::Dim{1, count}});
}

isa::AccessPattern dram_rows(uint32_t tensor, isa::DType dtype, uint64_t row_length, uint64_t row, uint32_t rows,
                             uint64_t column, uint32_t columns, int32_t row_stride) {
    isa::AccessPattern ap;
    ap.space = isa::MemorySpace::Dram;
    ap.dtype = dtype;
    ap.tensor = tensor;
    ap.partition_count = rows;
    ap.partition_stride = row_stride < 0 ? int32_t(row_length) : row_stride;
    ap.offset = (row * row_length + column) * isa::size_in_bytes(dtype);
    ap.dim_count = 1;
    ap.dims[0] = {1, columns};
    return ap;
}

View dram(const isa::AccessPattern& ap) {
    View v;
    v.ap = ap;
    return v;
}

}  // namespace nsim::kernels::builder
