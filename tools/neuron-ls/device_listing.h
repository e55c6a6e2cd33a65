// neuron-ls's output for a host snapshot, in the current format (Neuron SDK 2.25+,
// ../shared/reference/tools.md 1.7, 1.8): the `instance-type:` / `instance-id:` lines (and
// `logical-neuroncore-config:` on LNC chips), then one of two tables, as the real tool has no view
// combining both column sets:
//   default          NEURON DEVICE, NEURON CORES, NEURON CORE IDS, NEURON MEMORY, CONNECTED DEVICES,
//                    PCI BDF (long form), CPU AFFINITY, NUMA NODE - no processes;
//   --wide / -a      the earlier column set (tools.md 1.1, 1.3, 1.4, 1.6): NEURON DEVICE, NEURON CORES,
//                    NEURON MEMORY, CONNECTED DEVICES, PCI BDF (short form), and, when any process uses
//                    a device, PID, COMMAND and RUNTIME VERSION.
// CONNECTED DEVICES is left out on single-device instances in both. The JSON (tools.md 1.8) has
// every field of both, with the processes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "host_state_records.h"
#include "neuron-ls/host_snapshot.h"

namespace nsim::tools {

struct ListingOptions {
    bool wide = false;            // the process view, COMMAND up to 80 characters instead of 40
    // The process view, also listing processes that are not runtimes; here, this neuron-ls itself on
    // every device, as the real tool lists itself.
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
