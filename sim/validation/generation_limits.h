// What the container validator checks a program against, for a NeuronCore generation: every number
// comes from the chip's config (SBUF/PSUM geometry, tile limits, semaphores, DMA queues, engines).
// The assembler, the runtime's load and `neuron-sim run` all validate against these.
#pragma once

#include <cstdint>

#include "config/config_set.h"
#include "config/host_spec.h"
#include "isa/validator.h"

namespace nsim::sim {

// N of the chip's NeuronCore-vN ("v2" -> 2); 0 when the version does not say.
uint32_t generation_of_chip(const config::ChipSpec& chip);

isa::GenerationLimits limits_of_chip(const config::ChipSpec& chip);

// The limits of the first chip in `configs` whose core is NeuronCore-v`generation`. Throws
// config::ConfigError naming the generations the configuration does have when none matches.
isa::GenerationLimits limits_of_generation(const config::ConfigSet& configs, uint32_t generation);

}  // namespace nsim::sim
