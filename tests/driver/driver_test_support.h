// Shared pieces of the driver tests: a private NEURON_SIM_HOME per test, the shipped configs, and a
// rig holding one process's simulated host, host state and driver.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "common/temp_directory.h"
#include "config/config_set.h"
#include "host_state.h"
#include "neuron_driver.h"
#include "simulated_host.h"

namespace nsim::test {

inline const config::ConfigSet& shipped_configs() {
    static const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    return configs;
}

// A fresh state directory, removed afterwards.
using TempHome = TempDirectory;

inline std::string read_file(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// One process's view: hardware, host state and driver, not yet loaded.
struct DriverRig {
    explicit DriverRig(const std::string& instance, driver::HardwareFaults faults = {})
        : DriverRig(shipped_configs().host(instance), faults) {}
    // A shipped host changed by the test (e.g. a firmware slower than the driver waits for).
    explicit DriverRig(const config::HostSpec& host_spec, driver::HardwareFaults faults = {})
        : spec(host_spec), state(home.path(), spec.instance.name), host(spec, faults), driver(host.platform(), state) {}

    TempHome home;
    config::HostSpec spec;
    driver::HostState state;
    driver::SimulatedHost host;
    driver::NeuronDriver driver;

    std::string kernel_log() const {
        std::string text;
        for (const auto& line : state.kernel_log()) text += line + "\n";
        return text;
    }
};

}  // namespace nsim::test
