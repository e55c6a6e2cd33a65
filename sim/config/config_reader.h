// Reads config files into a ConfigSet in order, refusing a chip or instance name that an earlier
// file (or the same file) already defined. Instances may name only chips defined before them.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "config/config_set.h"

namespace nsim::config {

class ConfigReader {
public:
    explicit ConfigReader(ConfigSet& set) : set_(set) {}
    void read_file(const std::filesystem::path& file);

private:
    ConfigSet& set_;
    std::map<std::string, std::string> chip_origin_;      // name -> "FILE:LINE"
    std::map<std::string, std::string> instance_origin_;  // name -> "FILE:LINE"
};

}  // namespace nsim::config
