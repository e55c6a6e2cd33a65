#include "neuron-as/generation_limits.h"

#include <algorithm>
#include <map>
#include <string>

#include "isa/opcode_table.h"

namespace nsim::tools {
namespace {

// configs/ names engines by function; the ISA by queue.
const std::map<std::string, isa::Engine> engine_by_config_name = {
    {"tensor", isa::Engine::Pe}, {"scalar", isa::Engine::Act}, {"vector", isa::Engine::Dve},
    {"gpsimd", isa::Engine::Pool}, {"sync", isa::Engine::Sp},
};

}  // namespace

isa::GenerationLimits generation_limits(const config::ConfigSet& configs, uint32_t generation) {
    const std::string version = "v" + std::to_string(generation);
    std::string known;
    for (const auto& name : configs.chip_names()) {
        const config::ChipSpec& chip = configs.chip(name);
        const config::NeuronCoreSpec& core = chip.core;
        if (core.version != version) {
            if (known.find(core.version) == std::string::npos) known += (known.empty() ? "" : ", ") + core.version;
            continue;
        }
        isa::GenerationLimits limits;
        limits.generation = generation;
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
    throw config::ConfigError("no chip in the configuration has a NeuronCore-" + version +
                              (known.empty() ? std::string() : " (it has " + known + ")"));
}

}  // namespace nsim::tools
