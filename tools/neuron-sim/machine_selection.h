// Which simulated host a command runs on: an instance name plus the user's extra config files,
// resolved against the shipped configs/ into a HostSpec.
#pragma once

#include <string>
#include <vector>

#include "config/config_set.h"

namespace nsim::tools {

struct MachineSelection {
    std::string instance;
    std::vector<std::string> config_files;

    config::HostSpec resolve() const;
};

}  // namespace nsim::tools
