// The EC2 instance id a simulated host reports ("i-" and 17 hex digits, as real ids look). Derived
// from where the host's state lives, so it is stable across runs and differs between state homes.
#pragma once

#include <filesystem>
#include <string>

namespace nsim::tools {

std::string simulated_instance_id(const std::filesystem::path& home, const std::string& instance);

}  // namespace nsim::tools
