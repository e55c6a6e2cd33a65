#include "neuron-sim/nccom_test_command.h"

#include <iostream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "neuron-sim/cluster_processes.h"
#include "library/instance.h"
#include "library/node_exchange.h"

namespace nsim::tools {
namespace {

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
    return run_on_every_rank(*nodes, [&] { return run_on_nodes(machine, request, *nodes); });
}

}  // namespace nsim::tools
