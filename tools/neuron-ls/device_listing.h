// neuron-ls's output for a host snapshot, in one real era's format: the Neuron SDK 2.x tools before
// 2.25 (2023-2024; ../shared/reference/tools.md 1.1, 1.3, 1.4, 1.6). That era prints the
// `instance-type:` / `instance-id:` lines (and `logical-neuroncore-config:` on LNC chips), then
// NEURON DEVICE, NEURON CORES, NEURON MEMORY, CONNECTED DEVICES (left out on single-device
// instances), PCI BDF in its short form, and, when any process uses a device, PID, COMMAND and
// RUNTIME VERSION in the same default table (2.25+ moved those behind --wide and added NEURON CORE
// IDS, CPU AFFINITY and NUMA NODE, which a simulated host has no data for). The JSON output follows
// the only documented one (tools.md 1.8) without cpu_affinity / numa_node, for the same reason.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "host_state_records.h"
#include "neuron-ls/host_snapshot.h"

namespace nsim::tools {

struct ListingOptions {
    bool wide = false;            // COMMAND up to 80 characters instead of 40
    // Also list processes that are not runtimes; here, this neuron-ls itself on every device, as the
    // real tool lists itself.
    bool show_all_procs = false;
    driver::ProcessRecord self;   // this process, for show_all_procs
};

// Lines printed above the table.
std::string listing_header(const HostSnapshot& host);
std::string listing_table(const HostSnapshot& host, const ListingOptions& options);
nlohmann::ordered_json listing_json(const HostSnapshot& host, const ListingOptions& options);

// What neuron-ls says when no device is found (the driver is not loaded).
std::string no_device_message(const HostSnapshot& host);

}  // namespace nsim::tools
