// A simulated instance opened by this process: the host elaborated from its spec (devices, PCIe,
// cores), the driver, and an nrt-style runtime that has claimed its NeuronCores (NEURON_RT_VISIBLE_CORES
// or every core) - what an application has after nrt_init. Programs are loaded on it as Sessions
// (library/program_session.h), one or several, and each execution goes through the runtime and the
// driver (DESIGN.md: one path for every program).
//
// SystemC elaborates one platform per process, so a process opens at most one Instance in its life;
// a second one is refused with an Error instead of SystemC's abort. The Python module keeps its one
// instance open for the process's life and hands it out again.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "engine_executor.h"
#include "runtime.h"

namespace nsim::library {

// Instance `name` (empty: an Error listing the known ones) from the shipped configs, the extra
// `config_files` and the files the host remembers in the state home `home` (empty: the default
// home, $NEURON_SIM_HOME or ~/.neuron-sim).
config::HostSpec host_spec(const std::string& name, const std::vector<std::string>& config_files,
                           const std::filesystem::path& home = {});
// host_spec(), for a process that uses the host: the host remembers the extra config files, so that
// later commands and the other tools (neuron-ls, neuron-top) need not be given them again.
config::HostSpec use_host(const std::string& name, const std::vector<std::string>& config_files,
                          const std::filesystem::path& home = {});

class Instance {
public:
    // Error (one line) when the runtime refuses: driver not loaded, cores busy, device not ready...
    explicit Instance(const config::HostSpec& spec, runtime::RuntimeOptions options = {});
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    const config::HostSpec& spec() const { return spec_; }
    // The runtime and the engines underneath (sessions load and execute through them).
    runtime::Runtime& runtime() { return *runtime_; }
    runtime::EngineExecutor& engines() { return *engines_; }

private:
    config::HostSpec spec_;
    std::unique_ptr<runtime::Runtime> runtime_;
    runtime::EngineExecutor* engines_ = nullptr;  // owned by runtime_
};

}  // namespace nsim::library
