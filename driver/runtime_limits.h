// What the container validator checks a program against, for the chip the runtime runs on: every
// number comes from the chip's config (neuron-as computes the same for a generation; it can call this).
#pragma once

#include <cstdint>

#include "config/host_spec.h"
#include "isa/validator.h"

namespace nsim::runtime {

// N of the chip's NeuronCore-vN ("v2" -> 2); 0 when the version does not say.
uint32_t generation_of_chip(const config::ChipSpec& chip);
isa::GenerationLimits limits_of_chip(const config::ChipSpec& chip);

}  // namespace nsim::runtime
