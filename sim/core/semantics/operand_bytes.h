// Raw element bytes of an operand, gathered from and scattered to its memory in access-pattern
// order: row (partition) by row, then the free dimensions with the last one fastest (isa/FORMAT.md 5).
// Everything that touches SBUF, PSUM or a DRAM/HOST tensor goes through here.
#pragma once

#include <cstdint>
#include <vector>

#include <boost/container/vector.hpp>

#include "core/semantics/functional.h"

namespace nsim::sim::core {

// Number of elements an operand names: rows (partitions) times free elements per row.
uint64_t element_count(const isa::AccessPattern& ap);

// Contiguous byte runs an operand covers (what a DMA writes one descriptor for): one per partition
// row and free-dimension step on SBUF/PSUM, as each partition is its own memory; on DRAM/HOST, dense
// rows that follow each other are one run. Size-1 dimensions and dimensions that continue each
// other merge, as in gather_bytes.
uint64_t contiguous_runs(const isa::AccessPattern& ap);

// An operand's packed bytes. Not zeroed when made (boost's default_init): gather_bytes fills every
// byte, and a functional run gathers GBs (zeroing them was a twentieth of its host time).
using OperandBytes = boost::container::vector<uint8_t>;

// Throws SemanticsError when an element lies outside its partition, memory or tensor's memory, or the
// operand's memory is missing.
OperandBytes gather_bytes(const isa::AccessPattern& ap, const MemorySpaces& spaces);
// `packed` holds element_count(ap) * size_in_bytes(ap.dtype) bytes. Where the pattern reaches an
// element more than once (stride 0), the last one in pattern order wins.
void scatter_bytes(const isa::AccessPattern& ap, const uint8_t* packed, const MemorySpaces& spaces);

}  // namespace nsim::sim::core
