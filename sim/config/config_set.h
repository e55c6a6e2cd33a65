// Loading configs/: the chip-generation files and the instances file, plus any user file named
// with --config. Every problem is a ConfigError whose message is one line naming file, line and key.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/host_spec.h"

namespace nsim::config {

// A user-facing configuration problem. what() is a single line, e.g.
//   "configs/chips/nc-v2.yaml:42: key 'sbuf.partitions': must be greater than zero"
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ConfigSet {
public:
    // Reads every configs/chips/*.yaml and configs/instances.yaml under config_dir, then each
    // extra file in order (a user's own chips and/or instances; a name already defined is an error).
    static ConfigSet load(const std::filesystem::path& config_dir,
                          const std::vector<std::filesystem::path>& extra_files = {});
    // $NEURON_SIM_CONFIG_DIR if set, else the configs/ directory of the source tree this was built from.
    static std::filesystem::path default_dir();

    const ChipSpec& chip(const std::string& name) const;
    // The resolved host for an instance; an unknown name is a ConfigError listing the valid ones.
    HostSpec host(const std::string& instance) const;
    std::vector<std::string> instance_names() const;
    std::vector<std::string> chip_names() const;

private:
    std::map<std::string, ChipSpec> chips_;
    std::map<std::string, InstanceSpec> instances_;
    friend class ConfigReader;
};

}  // namespace nsim::config
