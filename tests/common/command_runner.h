// Runs a built tool as a user would and captures its exit code, stdout and stderr separately.
#pragma once

#include <string>

namespace nsim::test {

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// `command` is run by /bin/sh; `env` is prepended (e.g. "NEURON_SIM_HOME=/tmp/x"). Without a
// NEURON_SIM_HOME in `env`, the command gets a fresh private one, removed afterwards.
CommandResult run_command(const std::string& command, const std::string& env = "");
// Path of a tool built by this tree, e.g. tool_path("neuron-sim").
std::string tool_path(const std::string& name);
// Lines of `text`, without the trailing newline.
int count_lines(const std::string& text);

}  // namespace nsim::test
