#include "config/config_set.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "config/config_reader.h"
#include "config/instance_order.h"

namespace nsim::config {
namespace {

std::vector<std::filesystem::path> chip_files(const std::filesystem::path& config_dir) {
    std::error_code error;
    if (!std::filesystem::is_directory(config_dir, error))
        throw ConfigError(fmt::format("{}: not a config directory (one holds chips/*.yaml and instances.yaml)",
                                      config_dir.string()));
    const auto dir = config_dir / "chips";
    std::vector<std::filesystem::path> files;
    for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
         it.increment(error)) {
        if (it->path().extension() == ".yaml") files.push_back(it->path());
    }
    if (files.empty())
        throw ConfigError(fmt::format("{}: no chip files (*.yaml) found", dir.string()));
    // Directory order differs between file systems; errors and redefinitions must not.
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

ConfigSet ConfigSet::load(const std::filesystem::path& config_dir,
                          const std::vector<std::filesystem::path>& extra_files) {
    ConfigSet set;
    ConfigReader reader(set);
    for (const auto& file : chip_files(config_dir)) reader.read_file(file);
    reader.read_file(config_dir / "instances.yaml");
    for (const auto& file : extra_files) reader.read_file(file);
    return set;
}

std::filesystem::path ConfigSet::default_dir() {
    const char* override_dir = std::getenv("NEURON_SIM_CONFIG_DIR");
    if (override_dir && *override_dir) return override_dir;
    return NSIM_CONFIG_DIR;
}

const ChipSpec& ConfigSet::chip(const std::string& name) const {
    const auto it = chips_.find(name);
    if (it == chips_.end())
        throw ConfigError(fmt::format("unknown chip '{}'; valid chips: {}", name, fmt::join(chip_names(), ", ")));
    return it->second;
}

HostSpec ConfigSet::host(const std::string& instance) const {
    const auto it = instances_.find(instance);
    if (it == instances_.end())
        throw ConfigError(fmt::format("unknown instance '{}'; valid instances: {}", instance,
                                      fmt::join(instance_names(), ", ")));
    HostSpec host{it->second, chip(it->second.chip)};
    // Same chip, faster wiring (trn1n): the platform reads one link rate, the resolved one.
    if (host.instance.link_bytes_per_s > 0) host.chip.link.bytes_per_s = host.instance.link_bytes_per_s;
    return host;
}

std::vector<std::string> ConfigSet::instance_names() const {
    std::vector<std::string> names;
    for (const auto& entry : instances_) names.push_back(entry.first);
    std::sort(names.begin(), names.end(), instance_name_less);
    return names;
}

std::vector<std::string> ConfigSet::chip_names() const {
    std::vector<std::string> names;
    for (const auto& entry : chips_) names.push_back(entry.first);
    return names;
}

}  // namespace nsim::config
