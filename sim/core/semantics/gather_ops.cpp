// dma_gather: the indirect DMA of an embedding lookup. Row r of dst receives row indices[r] of the
// table, bytes untouched when the dtypes agree and converted (RNE) when they do not, as dma_copy.
#include <cstring>
#include <string>

#include "core/semantics/operand_bytes.h"
#include "core/semantics/opcode_semantics.h"

namespace nsim::sim::core {
namespace {

// Row `row` of an operand alone: one partition of SBUF/PSUM, one row of a DRAM/HOST tensor.
isa::AccessPattern row_of(const isa::AccessPattern& ap, uint32_t row) {
    isa::AccessPattern one = ap;
    one.partition_count = 1;
    if (ap.space == isa::MemorySpace::Sbuf || ap.space == isa::MemorySpace::Psum)
        one.partition_start = ap.partition_start + row;
    else
        one.offset = ap.offset + uint64_t(int64_t(ap.partition_stride) * row * int64_t(isa::size_in_bytes(ap.dtype)));
    return one;
}

}  // namespace

std::vector<int32_t> gather_row_indices(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::DmaGather;
    const isa::AccessPattern& indices = inst.ap(F::indices);
    if (indices.dtype != isa::DType::Int32)
        fail_operand(inst, F::indices, "is " + std::string(isa::name_of(indices.dtype)) + ", needs int32");
    OperandBytes bytes;
    try {
        bytes = gather_bytes(indices, spaces);
    } catch (const SemanticsError& e) {
        fail_operand(inst, F::indices, e.what());
    }
    std::vector<int32_t> rows(bytes.size() / sizeof(int32_t));
    std::memcpy(rows.data(), bytes.data(), rows.size() * sizeof(int32_t));
    const uint32_t table_rows = inst.ap(F::table).partition_count;
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r] < 0 || uint32_t(rows[r]) >= table_rows)
            throw SemanticsError("index " + std::to_string(rows[r]) + " (element " + std::to_string(r) +
                                 " of the indices) is outside the table's " + std::to_string(table_rows) + " rows");
    return rows;
}

void execute_DmaGather(const isa::Instruction& inst, const MemorySpaces& spaces) {
    namespace F = isa::fields::DmaGather;
    const std::vector<int32_t> rows = gather_row_indices(inst, spaces);
    const isa::AccessPattern &dst = inst.ap(F::dst), &table = inst.ap(F::table);
    if (dst.partition_count != rows.size())
        fail_operand(inst, F::dst, "has " + std::to_string(dst.partition_count) + " rows, needs one per index (" +
                                       std::to_string(rows.size()) + ")");
    if (dst.free_elements() != table.free_elements())
        fail_operand(inst, F::dst, "rows have " + std::to_string(dst.free_elements()) + " elements, the table's " +
                                       std::to_string(table.free_elements()));
    for (size_t r = 0; r < rows.size(); ++r) {
        try {
            copy_elements(row_of(dst, uint32_t(r)), row_of(table, uint32_t(rows[r])), spaces);
        } catch (const SemanticsError& e) {
            fail_operand(inst, F::dst, "row " + std::to_string(r) + ": " + e.what());
        }
    }
}

}  // namespace nsim::sim::core
