#include "neuron-sim/cluster_processes.h"

#include <filesystem>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "host_state.h"

namespace nsim::tools {

runtime::RuntimeOptions node_host(uint32_t first_node) {
    runtime::RuntimeOptions options;
    if (first_node == 0) return options;
    options.home = driver::HostState::default_home() / "cluster" / fmt::format("node-{}", first_node);
    std::filesystem::create_directories(options.home);
    return options;
}

int run_on_every_rank(library::NodeExchange& nodes, const std::function<int()>& run) {
    try {
        return run();
    } catch (const std::exception& e) {
        if (!dynamic_cast<const library::ClusterAbandoned*>(&e)) nodes.abandon(e.what());
        if (nodes.processes() == 1) throw;
        // mpirun stops the job at the first rank that exits non-zero: the line is out before any does.
        if (nodes.process() == 0) print_error_line("neuron-sim", e.what());
        nodes.barrier();
        return kExitUserError;
    }
}

}  // namespace nsim::tools
