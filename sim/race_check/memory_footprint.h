// The bytes an instruction operand touches, as regions of one address space per memory: in SBUF and
// PSUM the same bytes of consecutive partitions, in device and host memory the tensor's placement
// plus the byte within it (one region per DRAM row). Each partition's (row's) bytes run from the
// lowest to the highest element its free dimensions reach: exact for dense rows, a superset for
// strided ones (two queues writing alternate elements of one row look like they overlap).
#pragma once

#include <cstdint>
#include <vector>

#include "isa/container.h"

namespace nsim::sim::race_check {

struct ByteRange {
    uint64_t begin, end;   // [begin, end)
};

// Bytes [bytes) of each partition in [first_partition, end_partition); device and host memory have
// one partition, 0.
struct Region {
    uint64_t first_partition = 0, end_partition = 1;
    ByteRange bytes{0, 0};
};

// Which shadow memory an operand lives in: SBUF, PSUM, device memory or host memory.
enum class AddressSpace : uint8_t { Sbuf, Psum, Device, Host };

// The operand's space; false when it has none the checker follows (absent, or a tensor index out of range).
bool address_space(const isa::AccessPattern& ap, const isa::Container& program, AddressSpace* space);
std::vector<Region> footprint(const isa::AccessPattern& ap, const isa::Container& program);

}  // namespace nsim::sim::race_check
