// neuron-ls: the Neuron devices of a simulated host and the processes using them, as the real tool
// prints them (format: device_listing.h). Reads the host state only; never elaborates the hardware.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/host_configs.h"
#include "common/tool_main.h"
#include "config/config_set.h"
#include "host_state.h"
#include "neuron-ls/device_listing.h"
#include "neuron-ls/host_selection.h"
#include "neuron-ls/topology_diagram.h"
#include "process_identity.h"

int main(int argc, char** argv) {
    CLI::App app{"List the Neuron devices of a simulated host and the processes using them", "neuron-ls"};
    std::string instance;
    nsim::tools::ListingOptions options;
    bool json = false;
    app.add_option("--instance,-i", instance, "Simulated host (instance type); default: the one in the host state")
        ->envname("NEURON_SIM_INSTANCE");
    std::vector<std::string> config_files;
    app.add_option("--config", config_files, "Extra YAML file with your own chips or instances (a host remembers those "
                                             "it was first used with)")->check(CLI::ExistingFile);
    app.add_flag("--wide,-w", options.wide, "List the processes using each device, commands up to 80 characters");
    app.add_flag("--show-all-procs,-a", options.show_all_procs,
                 "List the processes using each device, also those that are not Neuron runtimes");
    app.add_flag("--json-output,-j", json, "Print the devices as JSON");
    bool topology = false;
    app.add_flag("--topology,-t", topology, "Draw how the devices are linked (NeuronLink) under the table");

    return nsim::tools::run_tool(app, argc, argv, [&] {
        const auto home = nsim::driver::HostState::default_home();
        const nsim::config::HostSpec spec = nsim::tools::existing_host_spec(home, instance, config_files);
        const nsim::tools::HostSnapshot host = nsim::tools::read_host_snapshot(home, spec);
        if (!host.driver_loaded) throw nsim::tools::UserError(nsim::tools::no_device_message(host));
        const auto me = nsim::driver::ProcessIdentity::self();
        options.self.pid = me.pid;
        options.self.command = me.command;
        if (json)
            std::cout << nsim::tools::listing_json(host, options).dump(4) << "\n";
        else
            std::cout << nsim::tools::listing_header(host) << nsim::tools::listing_table(host, options)
                      << (topology ? "\n" + nsim::tools::topology_diagram(host) : "");
        return 0;
    }, {{nsim::tools::kHomeVariable, nsim::tools::kHomeHelp}, {nsim::tools::kInstanceVariable, nsim::tools::kInstanceHelp}});
}
