// The CLI tests' user: neuron-sim as typed in a shell, with NEURON_SIM_HOME set to a private
// directory, and processes holding cores as forked children running the runtime.
#pragma once

#include <filesystem>
#include <string>
#include <utility>

#include "common/command_runner.h"
#include "runtime.h"
#include "runtime_test_support.h"

namespace nsim::test {

struct Cli {
    TempHome home;
    std::string instance;
    explicit Cli(std::string name) : instance(std::move(name)) {}
    // `env` goes before the command, e.g. "NEURON_RT_VISIBLE_CORES=1".
    CommandResult operator()(const std::string& args, const std::string& env = "") const {
        return run_command(tool_path("neuron-sim") + " --instance " + instance + " " + args,
                           "NEURON_SIM_HOME=" + home.path().string() + " " + env);
    }
    // The simulated host's plain `rmmod ...` / `modprobe ...` (the build's links to neuron-sim first on
    // PATH), on this host through NEURON_SIM_INSTANCE unless `env` says otherwise.
    CommandResult plain(const std::string& command_line, const std::string& env = "") const {
        const std::string sbin = std::filesystem::path(tool_path("neuron-sim")).parent_path() / "sbin";
        return run_command(command_line, "PATH=" + sbin + ":$PATH NEURON_SIM_HOME=" + home.path().string() +
                                             (env.empty() ? " NEURON_SIM_INSTANCE=" + instance : " " + env));
    }
    // A process that inits a runtime on nc0, reports, and optionally loads the example and holds.
    Child runtime_process(bool load, bool hold) const {
        return Child([this, load, hold](std::string&) {
            runtime::RuntimeOptions options;
            options.home = home.path();
            options.visible_cores = "0";
            runtime::Runtime rt(shipped_configs().host(instance), options);
            runtime::NrtStatus status = rt.init();
            runtime::Model* model = nullptr;
            if (status == runtime::NrtStatus::Success && load) status = rt.load(example_program(), -1, &model);
            Child::send(status == runtime::NrtStatus::Success ? "ok" : rt.last_error());
            if (hold && status == runtime::NrtStatus::Success) Child::wait_for_parent();
            return status == runtime::NrtStatus::Success ? 0 : 1;
        });
    }
};

}  // namespace nsim::test
