// read_tile / write_tile / copy_elements of functional.h: operand bytes plus dtype conversion.
#include <string>

#include "core/semantics/dtype_conversion.h"
#include "core/semantics/functional.h"
#include "core/semantics/operand_bytes.h"

namespace nsim::sim::core {

Tile read_tile(const isa::AccessPattern& ap, const MemorySpaces& spaces) {
    const OperandBytes bytes = gather_bytes(ap, spaces);
    Tile tile;
    tile.partitions = ap.partition_count;
    tile.free = ap.free_elements();
    tile.values.resize(element_count(ap));
    dtype::decode(ap.dtype, bytes.data(), tile.values.data(), tile.values.size());
    return tile;
}

// The tile's shape need not repeat the pattern's: elements correspond in order (a [1, 128] tile
// fills a [128, 1] pattern), only their number must agree.
void write_tile(const isa::AccessPattern& ap, const Tile& tile, const MemorySpaces& spaces) {
    const uint64_t count = element_count(ap);
    if (tile.values.size() != count)
        throw SemanticsError("writing " + std::to_string(tile.values.size()) + " values to a " +
                             std::string(isa::name_of(ap.space)) + " operand of " + std::to_string(count) + " elements");
    OperandBytes bytes(count * isa::size_in_bytes(ap.dtype), boost::container::default_init);
    if (spaces.rounding && spaces.rounding->stochastic() && dtype::rounds_stochastically(ap.dtype))
        dtype::encode_stochastic(ap.dtype, tile.values.data(), bytes.data(), count,
                                 spaces.rounding->next_write_bits(count).data());
    else
        dtype::encode(ap.dtype, tile.values.data(), bytes.data(), count);
    scatter_bytes(ap, bytes.data(), spaces);
}

// Elements correspond in pattern order; equal dtypes move bit patterns untouched (NaN payloads,
// int32 beyond 2^24), different ones convert through fp32 as write_tile rounds.
void copy_elements(const isa::AccessPattern& dst, const isa::AccessPattern& src, const MemorySpaces& spaces) {
    const uint64_t count = element_count(src);
    if (element_count(dst) != count)
        throw SemanticsError("copy of " + std::to_string(count) + " elements into " +
                             std::to_string(element_count(dst)) + " elements");
    if (dst.dtype == src.dtype) {
        const OperandBytes bytes = gather_bytes(src, spaces);
        scatter_bytes(dst, bytes.data(), spaces);
        return;
    }
    write_tile(dst, read_tile(src, spaces), spaces);
}

}  // namespace nsim::sim::core
