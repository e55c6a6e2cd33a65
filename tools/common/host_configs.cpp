#include "common/host_configs.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "neuron-ls/host_selection.h"

namespace nsim::tools {
namespace fs = std::filesystem;
namespace {

fs::path configs_dir(const fs::path& home, const std::string& instance) { return home / "hosts" / instance / "configs"; }

std::vector<fs::path> remembered(const fs::path& home, const std::string& instance) {
    std::vector<fs::path> files;
    if (instance.empty()) return files;
    std::error_code error;
    for (fs::directory_iterator it(configs_dir(home, instance), error), end; !error && it != end; it.increment(error))
        if (it->is_regular_file()) files.push_back(it->path());
    std::sort(files.begin(), files.end());   // numbered in the order they were given
    return files;
}

}  // namespace

void remember_host_configs(const fs::path& home, const std::string& instance, const std::vector<std::string>& files) {
    if (files.empty()) return;
    const fs::path dir = configs_dir(home, instance);
    std::error_code error;
    fs::remove_all(dir, error);
    fs::create_directories(dir, error);
    for (size_t i = 0; i < files.size() && !error; ++i) {
        const fs::path target = dir / fmt::format("{:02}-{}", i, fs::path(files[i]).filename().string());
        fs::copy_file(files[i], target, fs::copy_options::overwrite_existing, error);
    }
    if (error) throw UserError(fmt::format("cannot remember the config files of host {} in {}: {}", instance, dir.string(),
                                           error.message()));
}

config::ConfigSet load_host_configs(const fs::path& home, const std::string& instance, const std::vector<std::string>& extra) {
    std::vector<fs::path> files(extra.begin(), extra.end());
    // Given again on the command line, a file is not loaded twice (its chips would be defined twice).
    if (extra.empty())
        for (const fs::path& file : remembered(home, instance)) files.push_back(file);
    return config::ConfigSet::load(config::ConfigSet::default_dir(), files);
}

config::HostSpec existing_host_spec(const fs::path& home, const std::string& named, const std::vector<std::string>& extra) {
    const std::string name = select_host(home, named, load_host_configs(home, "", extra).instance_names());
    return load_host_configs(home, name, extra).host(name);
}

}  // namespace nsim::tools
