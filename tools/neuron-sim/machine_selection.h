// Which simulated host a command runs on: an instance name plus the user's extra config files,
// resolved against the shipped configs/ into a HostSpec.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config_set.h"

namespace nsim::tools {

struct MachineSelection {
    std::string instance;
    std::vector<std::string> config_files;

    // --instance/-i (or NEURON_SIM_INSTANCE) and --config FILE..., into this selection.
    void add_options(CLI::App& app);
    // The instance's spec, from the shipped configs, --config files, or the files the host remembers.
    config::HostSpec resolve() const;
    // resolve(), for a command that uses the host (its state directory): the host remembers the
    // --config files, so that later commands and the other tools need not repeat them.
    config::HostSpec resolve_host() const;
    // The remembering half of resolve_host(), for a command that has resolve()d already.
    void remember_host(const config::HostSpec& spec) const;
    // With no instance named, the simulated host the state home already has, chosen as neuron-ls
    // chooses it (neuron-ls/host_selection.h): for commands on an existing host, such as rmmod.
    MachineSelection or_existing_host() const;
};

}  // namespace nsim::tools
