#include "neuron-sim/nccom_test_command.h"

#include <filesystem>
#include <iostream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "host_state.h"
#include "library/instance.h"
#include "library/node_exchange.h"

namespace nsim::tools {
namespace {

// The host state a process's instance lives in: node 0 is this host (the state home neuron-ls and
// neuron-top read); a process whose first node is k > 0 simulates another machine, whose state has
// a directory of its own under the home, so that ranks on one machine do not claim each other's cores.
runtime::RuntimeOptions node_host(uint32_t first_node) {
    runtime::RuntimeOptions options;
    if (first_node == 0) return options;
    options.home = driver::HostState::default_home() / "cluster" / fmt::format("node-{}", first_node);
    std::filesystem::create_directories(options.home);
    return options;
}

int run_on_nodes(const MachineSelection& machine, const library::CollectiveBenchmarkRequest& request,
                 library::NodeExchange& nodes) {
    library::benchmark_sizes(request);  // a bad size, type or node count is refused before the host is touched
    nodes.spread(request.nodes);
    const config::HostSpec spec = machine.resolve();
    library::check_nodes(request, spec);
    const bool reports = nodes.process() == 0;
    if (reports) machine.remember_host(spec);
    library::Instance instance(spec, node_host(nodes.first_local_node()));
    // nccom-test's columns; GB/s means GiB/s there too (training.md A1.6). The header comes with the
    // first row, so that a program the runtime refuses leaves stdout empty.
    bool header_printed = false;
    const std::vector<library::CollectiveBenchmarkRow> rows =
        library::run_collective_benchmark(instance, request, nodes, [&](const library::CollectiveBenchmarkRow& row) {
            if (!reports) return;
            if (!std::exchange(header_printed, true))
                std::cout << fmt::format("{:>14}{:>16}{:>10}{:>16}{:>15}{:>15}\n", "size(B)", "count(elems)", "type",
                                         "time:avg(us)", "algbw(GB/s)", "busbw(GB/s)");
            std::cout << fmt::format("{:>14}{:>16}{:>10}{:>16.2f}{:>15.2f}{:>15.2f}\n", row.size_bytes, row.count,
                                     request.dtype, row.time_us, row.algbw_gib_s, row.busbw_gib_s)
                      << std::flush;
        });
    double sum = 0;
    for (const auto& row : rows) sum += row.busbw_gib_s;
    if (reports) std::cout << fmt::format("Avg bus bandwidth:\t{:.4f}GB/s\n", rows.empty() ? 0.0 : sum / double(rows.size()));
    return 0;
}

}  // namespace

int run_nccom_test(const MachineSelection& machine, const library::CollectiveBenchmarkRequest& request) {
    const std::unique_ptr<library::NodeExchange> nodes = library::open_node_exchange();
    try {
        return run_on_nodes(machine, request, *nodes);
    } catch (const std::exception& e) {
        // Every rank gives up at the exchange the others wait in (unless a peer gave up first and
        // said why); the first rank says it, once.
        if (!dynamic_cast<const library::ClusterAbandoned*>(&e)) nodes->abandon(e.what());
        if (nodes->processes() == 1) throw;
        // mpirun stops the job at the first rank that exits non-zero: the line is out before any does.
        if (nodes->process() == 0) std::cerr << "neuron-sim: " << e.what() << std::endl;
        nodes->barrier();
        return kExitUserError;
    }
}

}  // namespace nsim::tools
