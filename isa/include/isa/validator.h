// Checks a decoded container against what a NeuronCore generation can run. The generation's
// numbers are a parameter (filled by the tools from configs/), never constants here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/access_pattern.h"
#include "isa/container.h"

namespace nsim::isa {

struct GenerationLimits {
    uint32_t generation = 0;                  // N of NeuronCore-vN
    uint32_t engines = 0;                     // table_names engine mask of the engines the core has
    uint32_t sbuf_partitions = 0;
    uint64_t sbuf_bytes_per_partition = 0;
    uint32_t psum_partitions = 0;
    uint64_t psum_bytes_per_partition = 0;
    uint32_t max_contraction = 0;             // partitions of a matmul tile
    uint32_t max_stationary_free = 0;
    uint32_t max_moving_free = 0;
    uint32_t semaphores = 0;                  // per core
    uint32_t dma_queues = 0;                  // per core
};

// One problem: where it is and what it is. text() is the single line a tool prints.
struct Diagnostic {
    std::optional<uint32_t> section;          // section table index (streams)
    std::string section_description;          // "core 0 queue pe"
    std::optional<size_t> instruction;        // index within the stream
    std::string message;

    std::string text() const;
};

// A matmul's operands that do not fit together (dst[M, N] = stationary[K, M]^T @ moving[K, N]), one
// message each; empty when they do. The validator reports them per instruction, and the kernel builder
// refuses such a matmul when it is emitted, so a kernel writer hears of it at the call, not at the run.
std::vector<std::string> matmul_shape_problems(const AccessPattern& dst, const AccessPattern& stationary,
                                               const AccessPattern& moving);

// Every problem found, in file order; empty when the program can run on that generation.
std::vector<Diagnostic> validate(const Container&, const GenerationLimits&);

}  // namespace nsim::isa
