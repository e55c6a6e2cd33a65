#include "neuron-top/memory_tree.h"

#include <fmt/format.h>

namespace nsim::tools {
namespace {

std::string device_key(unsigned device) { return fmt::format("nd{}", device); }
std::string core_key(unsigned device, uint32_t nc) { return fmt::format("nd{}/nc{}", device, nc); }

}  // namespace

std::vector<TreeRow> memory_tree(const HostSnapshot& host, int pid, const std::set<std::string>& expanded) {
    const uint32_t lnc = host.logical_neuroncore_config;
    std::vector<TreeRow> rows;
    for (const DeviceView& device : host.devices) {
        uint64_t device_total = 0;
        // Per logical core: its models' rows and their total.
        std::vector<std::vector<TreeRow>> models(device.nc_count);
        std::vector<uint64_t> core_total(device.nc_count, 0);
        for (const driver::ProcessRecord& process : host.processes) {
            if (pid != 0 && process.pid != pid) continue;
            device_total += process.device_memory_on(device.index);
            for (const driver::ModelRecord& model : process.models) {
                if (model.cores.empty() || model.cores.front().device != device.index) continue;
                const uint32_t nc = model.cores.front().core / lnc;
                if (nc >= device.nc_count) continue;
                TreeRow row;
                row.depth = 2;
                row.label = model.name;
                row.model_id = std::to_string(model.id);
                row.device_bytes = model.device_bytes;
                models[nc].push_back(row);
                core_total[nc] += model.device_bytes;
            }
        }
        uint64_t in_models = 0;
        for (uint64_t bytes : core_total) in_models += bytes;

        TreeRow nd;
        nd.key = device_key(device.index);
        nd.label = fmt::format("ND{:>2}", device.index);
        nd.expandable = true;
        nd.expanded = expanded.count(nd.key) > 0;
        nd.device_bytes = std::max(device_total, in_models);
        rows.push_back(nd);
        if (!nd.expanded) continue;
        for (uint32_t nc = 0; nc < device.nc_count; ++nc) {
            TreeRow core;
            core.key = core_key(device.index, nc);
            core.depth = 1;
            core.label = fmt::format("NC{:>2}", nc);
            core.expandable = !models[nc].empty();
            core.expanded = core.expandable && expanded.count(core.key) > 0;
            core.device_bytes = core_total[nc];
            rows.push_back(core);
            if (core.expanded) rows.insert(rows.end(), models[nc].begin(), models[nc].end());
        }
        TreeRow runtime;
        runtime.depth = 1;
        runtime.label = "Runtime Memory";
        runtime.device_bytes = nd.device_bytes - in_models;
        rows.push_back(runtime);
    }
    return rows;
}

std::set<std::string> all_tree_keys(const HostSnapshot& host) {
    std::set<std::string> keys;
    for (const DeviceView& device : host.devices) {
        keys.insert(device_key(device.index));
        for (uint32_t nc = 0; nc < device.nc_count; ++nc) keys.insert(core_key(device.index, nc));
    }
    return keys;
}

}  // namespace nsim::tools
