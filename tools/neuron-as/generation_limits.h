// The validator's limits for a NeuronCore generation, taken from configs/ (the first chip whose core
// has that version).
#pragma once

#include <cstdint>

#include "config/config_set.h"
#include "isa/validator.h"

namespace nsim::tools {

// Throws config::ConfigError naming the generations configs/ does have when none matches.
isa::GenerationLimits generation_limits(const config::ConfigSet& configs, uint32_t generation);

}  // namespace nsim::tools
