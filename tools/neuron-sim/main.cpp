// neuron-sim: the simulator's command line. Thin: parse, hand to a command, print.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>  // declares sc_main extern "C"

#include "common/tool_main.h"
#include "neuron-sim/info_command.h"

int sc_main(int argc, char** argv) {
    CLI::App app{"Cycle-approximate simulator of AWS Neuron machines", "neuron-sim"};
    app.require_subcommand(1);
    std::string instance;
    std::vector<std::string> config_files;
    app.add_option("--instance,-i", instance, "Instance type to simulate, e.g. inf1.2xlarge")
        ->envname("NEURON_SIM_INSTANCE");
    app.add_option("--config", config_files, "Extra YAML file with your own chips or instances")
        ->check(CLI::ExistingFile);

    nsim::tools::InfoOptions info;
    CLI::App* info_cmd = app.add_subcommand("info", "Print the elaborated machine");
    info_cmd->add_flag("--json", info.json, "Print one JSON object");

    return nsim::tools::run_tool(app, argc, argv, [&] {
        nsim::tools::MachineSelection machine{instance, config_files};
        if (*info_cmd) return nsim::tools::run_info(machine, info);
        return 0;
    });
}
