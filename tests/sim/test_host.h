// Shared fixture helpers: load the shipped configs once and elaborate one platform per test.
#pragma once

#include <memory>
#include <string>

#include "config/config_set.h"
#include "platform/platform.h"

namespace nsim::test {

inline const config::ConfigSet& shipped_configs() {
    static const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    return configs;
}

// Elaborates the instance and completes elaboration, so transactions can flow. SystemC allows
// one elaboration per process; ctest runs every test in its own process.
inline std::unique_ptr<sim::Platform> elaborate(const std::string& instance) {
    auto platform = std::make_unique<sim::Platform>("machine", shipped_configs().host(instance));
    sim::Platform::finish_elaboration();
    return platform;
}

}  // namespace nsim::test
