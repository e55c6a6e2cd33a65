// An operand of an instruction: where in which memory, of which element type, in which order.
#pragma once

#include <array>
#include <cstdint>

#include "isa/types.h"

namespace nsim::isa {

// Part of the encoding (each operand has room for this many free dimensions), not a hardware limit.
constexpr size_t kMaxFreeDims = 4;
constexpr uint32_t kNoTensor = 0xFFFFFFFFu;
// The most elements one operand may name (partitions x free elements, stride-0 repeats included).
// The validator refuses more, so every model of an instruction - functional, timing (bytes, DMA
// bursts), cost - may count on it; the largest real operand, a whole HBM tensor, is far below.
constexpr uint64_t kMaxOperandElements = uint64_t(1) << 32;

struct Dim {
    int32_t stride = 0;   // elements
    uint32_t count = 0;
    bool operator==(const Dim& o) const { return stride == o.stride && count == o.count; }
};

// SBUF/PSUM: partitions [partition_start, partition_start + partition_count), and within each
// partition the elements offset + sum(i_d * stride_d) * element size, offset in bytes.
// DRAM/HOST: rows r = 0..partition_count-1 of the tensor `tensor`, each starting
// partition_stride * r elements after `offset` bytes into it; the free dimensions as above.
struct AccessPattern {
    MemorySpace space = MemorySpace::None;  // None: operand absent
    DType dtype = DType::None;
    uint8_t dim_count = 0;
    uint32_t tensor = kNoTensor;
    uint32_t partition_start = 0;
    uint32_t partition_count = 0;
    int32_t partition_stride = 0;
    uint64_t offset = 0;
    std::array<Dim, kMaxFreeDims> dims{};

    bool present() const { return space != MemorySpace::None; }
    uint64_t free_elements() const;
    // Smallest and largest element index reached by the free dimensions (relative to offset).
    int64_t min_free_index() const;
    int64_t max_free_index() const;
    bool operator==(const AccessPattern& o) const;
    bool operator!=(const AccessPattern& o) const { return !(*this == o); }
};

}  // namespace nsim::isa
