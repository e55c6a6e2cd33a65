// neuron-top: a live view of a simulated host's NeuronCores, memory and the processes using them,
// while neuron-sim runs in another terminal (layout: top_screen.h). --once prints one frame.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "common/host_configs.h"
#include "common/tool_main.h"
#include "config/config_set.h"
#include "host_state.h"
#include "neuron-ls/device_listing.h"
#include "neuron-ls/host_selection.h"
#include "neuron-top/curses_screen.h"
#include "neuron-top/memory_tree.h"
#include "neuron-top/top_session.h"

namespace {
// --once measures vCPU use over this long: two /proc samples are needed for a rate.
constexpr auto kOnceSamplePeriod = std::chrono::milliseconds(200);
}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Live view of a simulated host's NeuronCores and the processes using them", "neuron-top"};
    std::string instance;
    bool once = false;
    size_t width = 120;
    app.add_option("--instance,-i", instance, "Simulated host (instance type); default: the one in the host state")
        ->envname("NEURON_SIM_INSTANCE");
    std::vector<std::string> config_files;
    app.add_option("--config", config_files, "Extra YAML file with your own chips or instances (a host remembers those "
                                             "it was first used with)")->check(CLI::ExistingFile);
    app.add_flag("--once", once, "Print one frame to stdout and exit (no terminal UI)");
    app.add_option("--width", width, "Columns of the --once frame")->check(nsim::tools::in_range(40, 1000));

    return nsim::tools::run_tool(app, argc, argv, [&] {
        const auto home = nsim::driver::HostState::default_home();
        const nsim::config::HostSpec spec = nsim::tools::existing_host_spec(home, instance, config_files);
        nsim::tools::TopSession session(home, spec);
        session.refresh();
        if (!once) {
            // curses on a file or a pipe would write escape sequences to it until killed.
            if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
                throw nsim::tools::UserError("the live view needs a terminal; use --once to print one frame");
            return nsim::tools::run_curses(session);
        }
        if (!session.host().driver_loaded) throw nsim::tools::UserError(nsim::tools::no_device_message(session.host()));
        std::this_thread::sleep_for(kOnceSamplePeriod);
        session.refresh();
        session.view().expanded = nsim::tools::all_tree_keys(session.host());
        session.view().show_selection = false;
        std::cout << nsim::tools::frame_text(session.frame(width));
        return 0;
    }, {{nsim::tools::kHomeVariable, nsim::tools::kHomeHelp}, {nsim::tools::kInstanceVariable, nsim::tools::kInstanceHelp}});
}
