#include "race_check/memory_footprint.h"

#include <algorithm>

namespace nsim::sim::race_check {

bool address_space(const isa::AccessPattern& ap, const isa::Container& program, AddressSpace* space) {
    switch (ap.space) {
        case isa::MemorySpace::Sbuf: *space = AddressSpace::Sbuf; return true;
        case isa::MemorySpace::Psum: *space = AddressSpace::Psum; return true;
        case isa::MemorySpace::Dram:
        case isa::MemorySpace::Host:
            if (ap.tensor >= program.tensors.size()) return false;
            *space = program.tensors[ap.tensor].location == isa::TensorLocation::Host ? AddressSpace::Host : AddressSpace::Device;
            return true;
        default: return false;
    }
}

std::vector<ByteRange> footprint(const isa::AccessPattern& ap, const isa::Container& program) {
    std::vector<ByteRange> ranges;
    AddressSpace space;
    if (!address_space(ap, program, &space) || ap.free_elements() == 0) return ranges;
    const int64_t element = isa::size_in_bytes(ap.dtype);
    const int64_t low = ap.min_free_index() * element, high = (ap.max_free_index() + 1) * element;
    if (space == AddressSpace::Sbuf || space == AddressSpace::Psum) {
        for (uint32_t p = ap.partition_start; p < ap.partition_start + ap.partition_count; ++p) {
            const uint64_t base = uint64_t(p) << 32;
            ranges.push_back({base + uint64_t(std::max<int64_t>(0, int64_t(ap.offset) + low)), base + uint64_t(int64_t(ap.offset) + high)});
        }
        return ranges;
    }
    const uint64_t base = program.tensors[ap.tensor].offset;
    for (uint32_t r = 0; r < ap.partition_count; ++r) {
        const int64_t row = int64_t(ap.offset) + int64_t(ap.partition_stride) * int64_t(r) * element;
        ranges.push_back({base + uint64_t(std::max<int64_t>(0, row + low)), base + uint64_t(std::max<int64_t>(0, row + high))});
    }
    return ranges;
}

}  // namespace nsim::sim::race_check
