// Which configured engine (configs/ names engines by function: tensor, scalar, vector, gpsimd, sync)
// runs an ISA queue (named by queue: pe, act, dve, pool, sp). DMA queues have no configured engine:
// they run on the core's DMA engines.
#pragma once

#include <string>

#include "config/host_spec.h"
#include "isa/types.h"

namespace nsim::sim::core {

// "tensor" for Pe, "scalar" for Act, "vector" for Dve, "gpsimd" for Pool, "sync" for Sp; "" for Dma.
std::string config_engine_name(isa::Engine engine);

// The configured engine that executes `engine`'s queue, or nullptr when the core has none.
const config::EngineSpec* find_engine(const config::NeuronCoreSpec& core, isa::Engine engine);

}  // namespace nsim::sim::core
