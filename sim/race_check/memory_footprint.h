// The bytes an instruction operand touches, as intervals of one address space per memory: SBUF and
// PSUM bytes are (partition << 32) + byte within the partition, device and host memory bytes are the
// tensor's placement plus the byte within it. One interval per partition (or DRAM row) from the
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

// Which shadow memory an operand lives in: SBUF, PSUM, device memory or host memory.
enum class AddressSpace : uint8_t { Sbuf, Psum, Device, Host };

// The operand's space; false when it has none the checker follows (absent, or a tensor index out of range).
bool address_space(const isa::AccessPattern& ap, const isa::Container& program, AddressSpace* space);
std::vector<ByteRange> footprint(const isa::AccessPattern& ap, const isa::Container& program);

}  // namespace nsim::sim::race_check
