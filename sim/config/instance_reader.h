// Reading one entry of `instances:` into an InstanceSpec: counts, PCI addresses and links,
// with declared topologies expanded and every link checked.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "config/host_spec.h"

namespace nsim::config {

// The chips an instance may name: those defined so far.
struct ChipCatalog {
    std::function<const ChipSpec*(const std::string&)> find;
    std::function<std::vector<std::string>()> names;
};

InstanceSpec read_instance(const ConfigNode& node, const ChipCatalog& chips);

}  // namespace nsim::config
