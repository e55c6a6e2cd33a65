#include "library/instance.h"

#include <atomic>

#include "common/host_configs.h"
#include "host_state.h"
#include "library/library_error.h"

namespace nsim::library {
namespace {

std::filesystem::path home_or_default(const std::filesystem::path& home) {
    return home.empty() ? driver::HostState::default_home() : home;
}

// SystemC cannot elaborate a second platform once the first has run (DESIGN.md, simulated_host.h).
std::atomic<bool> instance_opened{false};

}  // namespace

config::HostSpec host_spec(const std::string& name, const std::vector<std::string>& config_files,
                           const std::filesystem::path& home) {
    const config::ConfigSet configs = tools::load_host_configs(home_or_default(home), name, config_files);
    if (name.empty()) {
        std::string names;
        for (const auto& n : configs.instance_names()) names += (names.empty() ? "" : ", ") + n;
        throw Error("no instance given; use --instance NAME (one of: " + names + ")");
    }
    return configs.host(name);
}

config::HostSpec use_host(const std::string& name, const std::vector<std::string>& config_files,
                          const std::filesystem::path& home) {
    const config::HostSpec spec = host_spec(name, config_files, home);
    tools::remember_host_configs(home_or_default(home), spec.instance.name, config_files);
    return spec;
}

Instance::Instance(const config::HostSpec& spec, runtime::RuntimeOptions options) : spec_(spec) {
    if (instance_opened.exchange(true))
        throw Error("this process has already opened a simulated instance (SystemC elaborates one host per process): "
                    "open it once and load every program on it");
    try {
        runtime_ = std::make_unique<runtime::Runtime>(spec_, std::move(options));
    } catch (const std::exception& e) {
        throw Error(e.what());
    }
    auto engines = std::make_unique<runtime::EngineExecutor>();
    engines_ = engines.get();
    runtime_->set_executor(std::move(engines));
    if (runtime_->init() != runtime::NrtStatus::Success) throw Error(runtime_->last_error());
}

Instance::~Instance() = default;

}  // namespace nsim::library
