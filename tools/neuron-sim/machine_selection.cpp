#include "neuron-sim/machine_selection.h"

#include "common/host_configs.h"
#include "common/tool_main.h"
#include "host_state.h"
#include "library/instance.h"
#include "neuron-ls/host_selection.h"

namespace nsim::tools {
namespace {

config::ConfigSet load_configs(const std::string& instance, const std::vector<std::string>& config_files) {
    return load_host_configs(driver::HostState::default_home(), instance, config_files);
}

}  // namespace

void MachineSelection::add_options(CLI::App& app) {
    app.add_option("--instance,-i", instance, "Instance type to simulate, e.g. inf1.2xlarge")->envname("NEURON_SIM_INSTANCE");
    app.add_option("--config", config_files, "Extra YAML file with your own chips or instances")->check(CLI::ExistingFile);
}

config::HostSpec MachineSelection::resolve() const { return library::host_spec(instance, config_files); }

MachineSelection MachineSelection::or_existing_host() const {
    if (!instance.empty()) return *this;
    MachineSelection chosen = *this;
    chosen.instance = select_host(driver::HostState::default_home(), "", load_configs("", config_files).instance_names());
    return chosen;
}

config::HostSpec MachineSelection::resolve_host() const { return library::use_host(instance, config_files); }

void MachineSelection::remember_host(const config::HostSpec& spec) const {
    remember_host_configs(driver::HostState::default_home(), spec.instance.name, config_files);
}

}  // namespace nsim::tools
