// A simulated host's state directory prepared by hand for neuron-ls / neuron-top tests: a temporary
// NEURON_SIM_HOME, processes that are really alive (children sleeping until the test ends, so the
// host state does not discard their records as stale), their claims, models and activity.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "host_state.h"

namespace nsim::test {

class PreparedHost {
public:
    explicit PreparedHost(const std::string& instance);
    ~PreparedHost();

    const std::filesystem::path& home() const { return home_; }
    driver::HostState& state() { return *state_; }
    // "NEURON_SIM_HOME=<home>", for run_command.
    std::string env() const;

    // Starts a live process and returns its record (pid, start time, `command`), not yet written.
    driver::ProcessRecord start_process(const std::string& command);
    // The record of a process that has already exited.
    driver::ProcessRecord finished_process(const std::string& command);
    void write(const driver::ProcessRecord& process) { state_->write_process(process); }
    void write_machine(bool driver_loaded);
    // One activity sample per core: busy_s of a 1 ms interval, published `age_s` ago by a process that
    // publishes every `period_s` (0: it has published once).
    void write_activity(int pid, const std::vector<std::pair<driver::CoreId, double>>& busy_fraction, double age_s = 0,
                        double period_s = 0);

private:
    std::filesystem::path home_;
    std::string instance_;
    std::unique_ptr<driver::HostState> state_;
    std::vector<pid_t> children_;
};

}  // namespace nsim::test
