#include "neuron-ls/device_listing.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/id_list.h"
#include "neuron-ls/box_table.h"

namespace nsim::tools {
namespace {

// COMMAND is cut to this many characters, the last three being "..." (tools.md 1.1).
constexpr size_t kCommandWidth = 40;
constexpr size_t kWideCommandWidth = 80;
constexpr const char* kNotApplicable = "NA";

std::string shortened(const std::string& command, size_t width) {
    if (command.size() <= width) return command;
    return command.substr(0, width - 3) + "...";
}

std::string memory_text(uint64_t bytes) {
    const double gib = double(bytes) / double(1ull << 30);
    return fmt::format("{:g} GB", gib);
}

// The runtime does not publish its version in the host state yet.
std::string runtime_version_of(const driver::ProcessRecord&) { return kNotApplicable; }

struct Listed {
    const driver::ProcessRecord* process;
    std::string runtime_version;
};

// Per device, the processes neuron-ls lists on it.
std::vector<std::vector<Listed>> processes_by_device(const HostSnapshot& host, const ListingOptions& options) {
    std::vector<std::vector<Listed>> listed(host.devices.size());
    for (const driver::ProcessRecord& process : host.processes)
        for (unsigned d : host.devices_of(process))
            if (d < listed.size()) listed[d].push_back({&process, runtime_version_of(process)});
    if (options.show_all_procs)
        for (auto& device : listed) device.push_back({&options.self, kNotApplicable});
    return listed;
}

std::string connected_text(const DeviceView& device) { return fmt::format("{}", fmt::join(device.connected_to, ", ")); }

// The default view since SDK 2.25 (tools.md 1.7, 1.8).
std::string topology_table(const HostSnapshot& host) {
    const bool connected_column = host.devices.size() > 1;
    BoxTable table;
    table.header = {{"NEURON", "DEVICE"}, {"NEURON", "CORES"}, {"NEURON", "CORE IDS"}, {"NEURON", "MEMORY"}};
    if (connected_column) table.header.push_back({"CONNECTED", "DEVICES"});
    table.header.insert(table.header.end(), {{"PCI", "BDF"}, {"CPU", "AFFINITY"}, {"NUMA", "NODE"}});
    for (const DeviceView& device : host.devices) {
        BoxTable::Row row = {std::to_string(device.index), std::to_string(device.nc_count),
                             config::format_id_list(device.neuroncore_ids), memory_text(device.memory_bytes)};
        if (connected_column) row.push_back(connected_text(device));
        row.insert(row.end(), {device.long_bdf, config::format_id_list(device.cpu_affinity), std::to_string(device.numa_node)});
        table.groups.push_back({row});
    }
    return table.render();
}

// --wide / --show-all-procs: the column set of the tools before 2.25, with the processes.
std::string process_table(const HostSnapshot& host, const ListingOptions& options) {
    const bool connected_column = host.devices.size() > 1;
    const auto listed = processes_by_device(host, options);
    const bool process_columns = std::any_of(listed.begin(), listed.end(), [](const auto& l) { return !l.empty(); });
    const size_t command_width = options.wide ? kWideCommandWidth : kCommandWidth;

    BoxTable table;
    table.header = {{"NEURON", "DEVICE"}, {"NEURON", "CORES"}, {"NEURON", "MEMORY"}};
    if (connected_column) table.header.push_back({"CONNECTED", "DEVICES"});
    table.header.push_back({"PCI", "BDF"});
    if (process_columns) {
        table.header.push_back({"PID", ""});
        table.header.push_back({"COMMAND", ""});
        table.header.push_back({"RUNTIME", "VERSION"});
    }
    for (const DeviceView& device : host.devices) {
        BoxTable::Row first = {std::to_string(device.index), std::to_string(device.nc_count), memory_text(device.memory_bytes)};
        if (connected_column) first.push_back(connected_text(device));
        first.push_back(device.bdf);
        const size_t device_cells = first.size();
        std::vector<BoxTable::Row> group;
        const auto& on_device = listed[device.index];
        if (process_columns && on_device.empty()) {
            for (int i = 0; i < 3; ++i) first.push_back(kNotApplicable);
            group.push_back(first);
        }
        for (size_t p = 0; p < on_device.size(); ++p) {
            BoxTable::Row row = p == 0 ? first : BoxTable::Row(device_cells, "");
            row.push_back(std::to_string(on_device[p].process->pid));
            row.push_back(shortened(on_device[p].process->command, command_width));
            row.push_back(on_device[p].runtime_version);
            group.push_back(row);
        }
        if (group.empty()) group.push_back(first);
        table.groups.push_back(group);
    }
    // Devices get a rule between them once one lists several processes (tools.md 1.1 vs 1.4).
    table.rule_between_groups = std::any_of(listed.begin(), listed.end(), [](const auto& l) { return l.size() > 1; });
    return table.render();
}

}  // namespace

std::string listing_header(const HostSnapshot& host) {
    std::string out = fmt::format("instance-type: {}\ninstance-id: {}\n", host.spec.instance.name, host.instance_id);
    if (host.logical_neuroncore_config > 1)
        out += fmt::format("logical-neuroncore-config: {}\n", host.logical_neuroncore_config);
    return out;
}

std::string listing_table(const HostSnapshot& host, const ListingOptions& options) {
    return options.wide || options.show_all_procs ? process_table(host, options) : topology_table(host);
}

nlohmann::ordered_json listing_json(const HostSnapshot& host, const ListingOptions& options) {
    const auto listed = processes_by_device(host, options);
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const DeviceView& device : host.devices) {
        nlohmann::ordered_json entry;
        entry["neuron_device"] = device.index;
        entry["bdf"] = device.bdf;
        entry["cpu_affinity"] = config::format_id_list(device.cpu_affinity);
        entry["numa_node"] = std::to_string(device.numa_node);  // a string in the real tool's JSON
        entry["connected_to"] = device.connected_to;
        entry["nc_count"] = device.nc_count;
        if (host.logical_neuroncore_config > 1) entry["logical_neuroncore_config"] = host.logical_neuroncore_config;
        entry["memory_size"] = device.memory_bytes;
        entry["neuroncore_ids"] = device.neuroncore_ids;
        nlohmann::ordered_json processes = nlohmann::ordered_json::array();
        for (const Listed& l : listed[device.index])
            processes.push_back({{"pid", l.process->pid},
                                 {"command", shortened(l.process->command, options.wide ? kWideCommandWidth : kCommandWidth)},
                                 {"neuron_runtime_version", l.runtime_version}});
        entry["neuron_processes"] = processes;
        devices.push_back(entry);
    }
    return devices;
}

std::string no_device_message(const HostSnapshot& host) {
    return fmt::format("No Neuron devices found on {}: the neuron driver is not loaded (load it with: neuron-sim --instance {} modprobe neuron)",
                       host.spec.instance.name, host.spec.instance.name);
}

}  // namespace nsim::tools
