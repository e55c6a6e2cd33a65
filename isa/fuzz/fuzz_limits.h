// The limits the isa fuzz targets validate against: a fictitious generation, since the fuzzers
// check robustness, not any real chip's numbers.
#pragma once

#include <cstdint>

#include "isa/validator.h"

namespace nsim::isa::fuzz {

inline GenerationLimits limits(uint32_t generation) {
    GenerationLimits l;
    l.generation = generation;
    l.engines = table_names::ANY_ENGINE;
    l.sbuf_partitions = 64;
    l.sbuf_bytes_per_partition = 4096;
    l.psum_partitions = 64;
    l.psum_bytes_per_partition = 1024;
    l.max_contraction = 64;
    l.max_stationary_free = 64;
    l.max_moving_free = 256;
    l.semaphores = 16;
    l.dma_queues = 4;
    return l;
}

}  // namespace nsim::isa::fuzz
