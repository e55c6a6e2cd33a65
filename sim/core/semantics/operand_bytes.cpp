#include "core/semantics/operand_bytes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nsim::sim::core {
namespace {

// The free dimensions in bytes, outermost first, with size-1 dimensions dropped and dimensions that
// continue each other merged, so that a dense row becomes one contiguous run.
struct FreeWalk {
    struct Step {
        uint64_t count;
        int64_t stride_bytes;
    };
    std::array<Step, isa::kMaxFreeDims> dims{};
    size_t dim_count = 0;
    uint64_t run_bytes = 0;   // bytes of the innermost contiguous run (one element when strided)
    int64_t span_low = 0;     // byte range the row reaches, relative to its first element
    int64_t span_high = 0;    // one past the last byte

    bool dense() const { return dim_count == 0 && int64_t(run_bytes) == span_high - span_low; }
};

FreeWalk walk_of(const isa::AccessPattern& ap, uint32_t element_bytes) {
    FreeWalk w;
    std::array<FreeWalk::Step, isa::kMaxFreeDims> kept{};
    size_t n = 0;
    for (size_t d = 0; d < ap.dim_count && d < isa::kMaxFreeDims; ++d) {
        if (ap.dims[d].count == 1) continue;
        const FreeWalk::Step step{ap.dims[d].count, int64_t(ap.dims[d].stride) * element_bytes};
        if (n > 0 && kept[n - 1].stride_bytes == int64_t(step.count) * step.stride_bytes) {
            kept[n - 1] = {kept[n - 1].count * step.count, step.stride_bytes};  // outer continues inner
        } else {
            kept[n++] = step;
        }
    }
    w.run_bytes = element_bytes;
    if (n > 0 && kept[n - 1].stride_bytes == int64_t(element_bytes)) {
        w.run_bytes = kept[n - 1].count * element_bytes;
        --n;
    }
    w.dims = kept;
    w.dim_count = n;
    w.span_low = ap.min_free_index() * int64_t(element_bytes);
    w.span_high = (ap.max_free_index() + 1) * int64_t(element_bytes);
    return w;
}

// Calls f(byte offset of the run relative to the row's first element, packed index of its first
// byte) for every run in pattern order.
template <class F>
void for_each_run(const FreeWalk& w, F&& f) {
    std::array<uint64_t, isa::kMaxFreeDims> index{};
    int64_t offset = 0;
    uint64_t packed = 0;
    for (;;) {
        f(offset, packed);
        packed += w.run_bytes;
        size_t d = w.dim_count;
        for (;;) {
            if (d == 0) return;
            --d;
            offset += w.dims[d].stride_bytes;
            if (++index[d] < w.dims[d].count) break;
            offset -= w.dims[d].stride_bytes * int64_t(w.dims[d].count);
            index[d] = 0;
        }
    }
}

// Small fixed-size copies compile to single moves; strided operands copy one element per run.
inline void copy_run(uint8_t* to, const uint8_t* from, uint64_t bytes) {
    switch (bytes) {
        case 1: *to = *from; return;
        case 2: std::memcpy(to, from, 2); return;
        case 4: std::memcpy(to, from, 4); return;
        default: std::memcpy(to, from, bytes);
    }
}

// Where the rows of an operand are: row r starts at first_row + r * row_step bytes of `memory`.
struct Placement {
    SparseMemory* memory = nullptr;
    int64_t first_row = 0;
    int64_t row_step = 0;
    uint32_t rows = 0;
    FreeWalk walk;
};

std::string space_text(const isa::AccessPattern& ap) {
    std::string text(isa::name_of(ap.space));
    if (!isa::is_partitioned(ap.space)) text += " tensor " + std::to_string(ap.tensor);
    return text;
}

Placement place(const isa::AccessPattern& ap, const MemorySpaces& spaces) {
    element_count(ap);
    const uint32_t element_bytes = isa::size_in_bytes(ap.dtype);
    Placement p;
    p.rows = ap.partition_count;
    p.walk = walk_of(ap, element_bytes);
    if (isa::is_partitioned(ap.space)) {
        const bool sbuf = ap.space == isa::MemorySpace::Sbuf;
        p.memory = sbuf ? spaces.sbuf : spaces.psum;
        const uint64_t partition_bytes = sbuf ? spaces.sbuf_partition_bytes : spaces.psum_partition_bytes;
        if (!p.memory || partition_bytes == 0) throw SemanticsError(space_text(ap) + " operand but the core has no " + space_text(ap));
        const uint64_t partitions = p.memory->size() / partition_bytes;
        if (uint64_t(ap.partition_start) + ap.partition_count > partitions)
            throw SemanticsError(space_text(ap) + " operand: partitions [" + std::to_string(ap.partition_start) + ", " +
                                 std::to_string(uint64_t(ap.partition_start) + ap.partition_count) + ") outside the " +
                                 std::to_string(partitions) + " partitions");
        const int64_t low = int64_t(ap.offset) + p.walk.span_low, high = int64_t(ap.offset) + p.walk.span_high;
        if (low < 0 || high > int64_t(partition_bytes))
            throw SemanticsError(space_text(ap) + " operand: bytes [" + std::to_string(low) + ", " + std::to_string(high) +
                                 ") of each partition outside its " + std::to_string(partition_bytes) + " bytes");
        p.first_row = int64_t(ap.partition_start) * int64_t(partition_bytes) + int64_t(ap.offset);
        p.row_step = int64_t(partition_bytes);
        return p;
    }
    if (ap.space != isa::MemorySpace::Dram && ap.space != isa::MemorySpace::Host)
        throw SemanticsError("operand without a memory space");
    if (!spaces.tensor_location) throw SemanticsError(space_text(ap) + " operand but no tensor table");
    if (ap.partition_start != 0)
        throw SemanticsError(space_text(ap) + " operand: partition start must be 0 (rows start at the offset)");
    const TensorLocation location = spaces.tensor_location(ap.space, ap.tensor);
    if (!location.memory) throw SemanticsError(space_text(ap) + " is not in any memory");
    p.memory = location.memory;
    p.first_row = int64_t(location.base) + int64_t(ap.offset);
    p.row_step = int64_t(ap.partition_stride) * element_bytes;
    return p;
}

// Rows whose reach is at most this many bytes (or a few times their payload) are read as one span,
// so that a row costs one memory access however it is strided; wider rows go run by run.
constexpr int64_t kSpanBytes = 64 * 1024;

bool read_whole_span(const FreeWalk& w, uint64_t payload_bytes) {
    const int64_t span = w.span_high - w.span_low;
    return span <= std::max<int64_t>(kSpanBytes, 4 * int64_t(payload_bytes));
}

void check_row(const Placement& p, const isa::AccessPattern& ap, int64_t row_address) {
    const int64_t low = row_address + p.walk.span_low, high = row_address + p.walk.span_high;
    if (low < 0 || uint64_t(high) > p.memory->size())
        throw SemanticsError(space_text(ap) + " operand: bytes [" + std::to_string(low) + ", " + std::to_string(high) +
                             ") outside its memory of " + std::to_string(p.memory->size()) + " bytes");
}

}  // namespace

uint64_t contiguous_runs(const isa::AccessPattern& ap) {
    if (ap.partition_count == 0) return 0;
    const uint32_t element_bytes = isa::size_in_bytes(ap.dtype);
    const FreeWalk w = walk_of(ap, element_bytes);
    uint64_t per_row = 1;
    for (size_t d = 0; d < w.dim_count; ++d) per_row *= w.dims[d].count;
    // Dense rows of a tensor that follow each other make one run; a partition never continues another.
    const bool rows_continue = !isa::is_partitioned(ap.space) && w.dense() &&
                               int64_t(ap.partition_stride) * element_bytes == int64_t(w.run_bytes);
    return rows_continue ? 1 : uint64_t(ap.partition_count) * per_row;
}

// Also the first check of every operand, before anything is allocated for it: enumerations from a
// hand-built instruction may be outside their tables, and stride-0 dimensions can name more
// elements than the host could hold (2^32 per operand is the functional model's own limit, far
// beyond any tile).
uint64_t element_count(const isa::AccessPattern& ap) {
    if (!isa::is_valid_space(uint32_t(ap.space))) throw SemanticsError("operand without a valid memory space");
    if (!isa::is_valid_dtype(uint32_t(ap.dtype))) throw SemanticsError(space_text(ap) + " operand has no valid dtype");
    constexpr uint64_t kMostElements = isa::kMaxOperandElements;
    uint64_t count = ap.partition_count;
    for (size_t d = 0; d < ap.dim_count && d < isa::kMaxFreeDims; ++d) {
        count *= ap.dims[d].count;
        if (count > kMostElements)  // below 2^32 * 2^32: never wraps
            throw SemanticsError(space_text(ap) + " operand names more than 2^32 elements");
    }
    return count;
}

OperandBytes gather_bytes(const isa::AccessPattern& ap, const MemorySpaces& spaces) {
    const Placement p = place(ap, spaces);
    const uint64_t row_bytes = ap.free_elements() * isa::size_in_bytes(ap.dtype);
    OperandBytes packed(row_bytes * p.rows, boost::container::default_init);
    const bool whole = read_whole_span(p.walk, row_bytes);
    OperandBytes span(whole && !p.walk.dense() ? size_t(p.walk.span_high - p.walk.span_low) : 0,
                      boost::container::default_init);
    for (uint32_t r = 0; r < p.rows; ++r) {
        const int64_t row = p.first_row + int64_t(r) * p.row_step;
        check_row(p, ap, row);
        uint8_t* out = packed.data() + r * row_bytes;
        if (p.walk.dense()) {
            p.memory->read(uint64_t(row + p.walk.span_low), out, row_bytes);
        } else if (whole) {
            p.memory->read(uint64_t(row + p.walk.span_low), span.data(), span.size());
            const uint8_t* base = span.data() - p.walk.span_low;
            for_each_run(p.walk, [&](int64_t offset, uint64_t at) { copy_run(out + at, base + offset, p.walk.run_bytes); });
        } else {
            for_each_run(p.walk, [&](int64_t offset, uint64_t at) {
                p.memory->read(uint64_t(row + offset), out + at, p.walk.run_bytes);
            });
        }
    }
    return packed;
}

void scatter_bytes(const isa::AccessPattern& ap, const uint8_t* packed, const MemorySpaces& spaces) {
    const Placement p = place(ap, spaces);
    const uint64_t row_bytes = ap.free_elements() * isa::size_in_bytes(ap.dtype);
    const bool whole = read_whole_span(p.walk, row_bytes);
    OperandBytes span(whole && !p.walk.dense() ? size_t(p.walk.span_high - p.walk.span_low) : 0,
                      boost::container::default_init);
    for (uint32_t r = 0; r < p.rows; ++r) {
        const int64_t row = p.first_row + int64_t(r) * p.row_step;
        check_row(p, ap, row);
        const uint8_t* in = packed + r * row_bytes;
        if (p.walk.dense()) {
            p.memory->write(uint64_t(row + p.walk.span_low), in, row_bytes);
        } else if (whole) {
            // Read-modify-write keeps the bytes between the pattern's elements.
            p.memory->read(uint64_t(row + p.walk.span_low), span.data(), span.size());
            uint8_t* base = span.data() - p.walk.span_low;
            for_each_run(p.walk, [&](int64_t offset, uint64_t at) { copy_run(base + offset, in + at, p.walk.run_bytes); });
            p.memory->write(uint64_t(row + p.walk.span_low), span.data(), span.size());
        } else {
            for_each_run(p.walk, [&](int64_t offset, uint64_t at) {
                p.memory->write(uint64_t(row + offset), in + at, p.walk.run_bytes);
            });
        }
    }
}

}  // namespace nsim::sim::core
