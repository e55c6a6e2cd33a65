// Which simulated host neuron-ls and neuron-top look at. A state home holds one directory per host
// (hosts/<instance>); the user names one with --instance (or NEURON_SIM_INSTANCE), otherwise the tools
// take the only host there is, or the only one with processes running on it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nsim::tools {

// `named` wins when given. Otherwise a UserError explains how to pick one, listing `known_instances`
// when the home has no host yet and the hosts it has when there are several.
std::string select_host(const std::filesystem::path& home, const std::string& named,
                        const std::vector<std::string>& known_instances);

}  // namespace nsim::tools
