// What the commands that simulate several instances ("nodes": nccom-test -N, train --nodes) share
// when their nodes are spread over mpirun's ranks (library/node_exchange.h): where each process's
// simulated host lives, and how a failure on any rank becomes one line on stderr and a non-zero exit
// of every rank.
#pragma once

#include <cstdint>
#include <functional>

#include "library/node_exchange.h"
#include "runtime.h"

namespace nsim::tools {

// The host state a process's instance lives in: node 0 is this host (the state home neuron-ls and
// neuron-top read); a process whose first node is k > 0 simulates another machine, whose state has
// a directory of its own under the home, so that ranks on one machine do not claim each other's cores.
runtime::RuntimeOptions node_host(uint32_t first_node);

// run() on this process; when it throws, every rank gives up at the exchange the others wait in
// (unless a peer gave up first and said why) and the first rank says it, once. In one process the
// exception goes on (tool_main prints it).
int run_on_every_rank(library::NodeExchange& nodes, const std::function<int()>& run);

}  // namespace nsim::tools
