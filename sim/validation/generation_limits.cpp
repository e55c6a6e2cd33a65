#include "validation/generation_limits.h"

#include <algorithm>
#include <map>
#include <string>

#include "isa/opcode_table.h"

namespace nsim::sim {

uint32_t generation_of_chip(const config::ChipSpec& chip) {
    const std::string& version = chip.core.version;
    if (version.size() < 2 || version[0] != 'v' || version.find_first_not_of("0123456789", 1) != std::string::npos) return 0;
    return uint32_t(std::stoul(version.substr(1)));
}

isa::GenerationLimits limits_of_chip(const config::ChipSpec& chip) {
    // configs/ names engines by function; the ISA by queue.
    static const std::map<std::string, isa::Engine> engine_by_config_name = {
        {"tensor", isa::Engine::Pe}, {"scalar", isa::Engine::Act}, {"vector", isa::Engine::Dve},
        {"gpsimd", isa::Engine::Pool}, {"sync", isa::Engine::Sp},
    };
    const config::NeuronCoreSpec& core = chip.core;
    isa::GenerationLimits limits;
    limits.generation = generation_of_chip(chip);
    for (const auto& engine : core.engines) {
        auto it = engine_by_config_name.find(engine.name);
        if (it != engine_by_config_name.end()) limits.engines |= isa::table_names::engine_bit(it->second);
    }
    if (core.dma_engines > 0) limits.engines |= isa::table_names::engine_bit(isa::Engine::Dma);
    limits.sbuf_partitions = core.sbuf.partitions;
    limits.sbuf_bytes_per_partition = core.sbuf.bytes_per_partition;
    limits.psum_partitions = core.psum.partitions;
    limits.psum_bytes_per_partition = core.psum.bytes_per_partition;
    limits.max_contraction = core.tensor.max_contraction;
    limits.max_stationary_free = core.tensor.max_stationary_free;
    limits.max_moving_free = core.tensor.max_moving_free;
    limits.semaphores = core.semaphores;
    limits.dma_queues = core.dma_engines * std::max<uint32_t>(1, core.dma_queues_per_engine);
    return limits;
}

isa::GenerationLimits limits_of_generation(const config::ConfigSet& configs, uint32_t generation) {
    std::string known;
    for (const auto& name : configs.chip_names()) {
        const config::ChipSpec& chip = configs.chip(name);
        if (generation_of_chip(chip) == generation) return limits_of_chip(chip);
        if (known.find(chip.core.version) == std::string::npos) known += (known.empty() ? "" : ", ") + chip.core.version;
    }
    throw config::ConfigError("no chip in the configuration has a NeuronCore-v" + std::to_string(generation) +
                              (known.empty() ? std::string() : " (it has " + known + ")"));
}

}  // namespace nsim::sim
