#include "neuron-sim/machine_selection.h"

#include "common/tool_main.h"

namespace nsim::tools {

config::HostSpec MachineSelection::resolve() const {
    std::vector<std::filesystem::path> extra(config_files.begin(), config_files.end());
    const config::ConfigSet configs = config::ConfigSet::load(config::ConfigSet::default_dir(), extra);
    if (instance.empty()) {
        std::string names;
        for (const auto& n : configs.instance_names()) names += (names.empty() ? "" : ", ") + n;
        throw UserError("no instance given; use --instance NAME (one of: " + names + ")");
    }
    return configs.host(instance);
}

}  // namespace nsim::tools
