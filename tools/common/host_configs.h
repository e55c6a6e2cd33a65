// The config files a simulated host was first used with (--config), remembered in its state
// directory (hosts/<instance>/configs/), so that every tool - neuron-sim, neuron-ls, neuron-top,
// neuron-monitor - finds the host's instance and chip without being given --config again.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/config_set.h"

namespace nsim::tools {

// Copies `files` into the host's state directory (replacing what it remembered), when there are any.
void remember_host_configs(const std::filesystem::path& home, const std::string& instance,
                           const std::vector<std::string>& files);

// The shipped configs, `extra` files, then the files host `instance` remembers (none when it has none).
config::ConfigSet load_host_configs(const std::filesystem::path& home, const std::string& instance,
                                    const std::vector<std::string>& extra);

// The host a viewer looks at: `named`, else the one the state home has (select_host), with its configs.
config::HostSpec existing_host_spec(const std::filesystem::path& home, const std::string& named,
                                    const std::vector<std::string>& extra);

}  // namespace nsim::tools
