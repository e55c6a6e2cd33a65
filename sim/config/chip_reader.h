// Reading a chip-generation file's `neuron_core:` and `chips:` sections into ChipSpecs.
#pragma once

#include <vector>

#include "config/config_node.h"
#include "config/host_spec.h"

namespace nsim::config {

struct ChipDefinition {
    ChipSpec spec;
    ConfigNode node;  // where it is defined, for redefinition errors
};

// Every chip of `chips:`, each carrying the file's `neuron_core:`; everything validated.
std::vector<ChipDefinition> read_chips(const ConfigNode& neuron_core, const ConfigNode& chips);

}  // namespace nsim::config
