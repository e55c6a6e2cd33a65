// neuron-monitor: the simulated host's metrics as the real tool reports them (tools.md 3): one JSON
// document per line on stdout every time a metric group is due, groups and periods from a config file
// of the real tool's shape (-c). Pipe it into neuron-monitor-prometheus for a Prometheus endpoint.
#include <chrono>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

#include "common/host_configs.h"
#include "common/tool_main.h"
#include "host_state.h"
#include "neuron-monitor/monitor_config.h"
#include "neuron-monitor/monitor_report.h"

int main(int argc, char** argv) {
    CLI::App app{"Report a simulated host's Neuron metrics as JSON, one document per line", "neuron-monitor"};
    std::string config_file, instance;
    std::vector<std::string> config_files;
    int verbose = 0;
    uint64_t reports = 0;
    app.add_option("-c,--config-file", config_file, "Monitor configuration (JSON: period, neuron_runtimes, system_metrics); "
                                                     "default: every group every 5 s");
    app.add_option("--verbose", verbose, "Verbosity 0..4 (accepted; the simulated monitor has nothing more to say)")
        ->check(nsim::tools::in_range(0, 4));
    app.add_option("--instance,-i", instance, "Simulated host (instance type); default: the one in the host state")
        ->envname("NEURON_SIM_INSTANCE");
    app.add_option("--config", config_files, "Extra YAML file with your own chips or instances (a host remembers those "
                                              "it was first used with)")->check(CLI::ExistingFile);
    app.add_option("--reports", reports, "Stop after this many reports (default: run until killed)");

    return nsim::tools::run_tool(app, argc, argv, [&] {
        const nsim::tools::MonitorConfig config =
            config_file.empty() ? nsim::tools::default_monitor_config() : nsim::tools::read_monitor_config(config_file);
        const auto home = nsim::driver::HostState::default_home();
        nsim::tools::MonitorReporter reporter(home, nsim::tools::existing_host_spec(home, instance, config_files), config);
        for (uint64_t written = 0; reports == 0 || written < reports; ++written) {
            std::this_thread::sleep_for(std::chrono::duration<double>(reporter.seconds_until_due()));
            std::cout << reporter.next_report().dump() << std::endl;
            if (!std::cout) return 0;   // the reader went away
        }
        return 0;
    }, {{nsim::tools::kHomeVariable, nsim::tools::kHomeHelp}, {nsim::tools::kInstanceVariable, nsim::tools::kInstanceHelp}});
}
