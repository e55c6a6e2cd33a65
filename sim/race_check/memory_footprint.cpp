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

std::vector<Region> footprint(const isa::AccessPattern& ap, const isa::Container& program) {
    std::vector<Region> regions;
    AddressSpace space;
    if (!address_space(ap, program, &space) || ap.free_elements() == 0) return regions;
    const int64_t element = isa::size_in_bytes(ap.dtype);
    const int64_t low = ap.min_free_index() * element, high = (ap.max_free_index() + 1) * element;
    if (space == AddressSpace::Sbuf || space == AddressSpace::Psum) {
        if (ap.partition_count > 0)
            regions.push_back({ap.partition_start, uint64_t(ap.partition_start) + ap.partition_count,
                               {uint64_t(std::max<int64_t>(0, int64_t(ap.offset) + low)), uint64_t(int64_t(ap.offset) + high)}});
        return regions;
    }
    const uint64_t base = program.tensors[ap.tensor].offset;
    for (uint32_t r = 0; r < ap.partition_count; ++r) {
        const int64_t row = int64_t(ap.offset) + int64_t(ap.partition_stride) * int64_t(r) * element;
        regions.push_back({0, 1, {base + uint64_t(std::max<int64_t>(0, row + low)), base + uint64_t(std::max<int64_t>(0, row + high))}});
    }
    return regions;
}

}  // namespace nsim::sim::race_check
