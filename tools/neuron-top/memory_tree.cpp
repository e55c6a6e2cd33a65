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
        // Per logical core: the models with memory there, and that memory by category.
        std::vector<std::vector<TreeRow>> models(device.nc_count);
        std::vector<driver::CoreMemoryUsage> categories(device.nc_count);
        for (const driver::ProcessRecord& process : host.processes) {
            if (pid != 0 && process.pid != pid) continue;
            device_total += process.device_memory_on(device.index);
            for (const driver::ModelRecord& model : process.models) {
                std::vector<uint64_t> on_core(device.nc_count, 0);
                for (const driver::CoreMemoryUsage& usage : model.core_memory) {
                    const uint32_t nc = usage.core.core / lnc;
                    if (usage.core.device != device.index || nc >= device.nc_count) continue;
                    on_core[nc] += usage.total();
                    categories[nc].model_code += usage.model_code;
                    categories[nc].constants += usage.constants;
                    categories[nc].tensors += usage.tensors;
                }
                for (uint32_t nc = 0; nc < device.nc_count; ++nc) {
                    if (on_core[nc] == 0) continue;
                    TreeRow row;
                    row.depth = 2;
                    row.label = model.name;
                    row.model_id = std::to_string(model.id);
                    row.device_bytes = on_core[nc];
                    models[nc].push_back(row);
                }
            }
        }
        uint64_t in_models = 0;
        for (const auto& c : categories) in_models += c.total();

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
            core.device_bytes = categories[nc].total();
            rows.push_back(core);
            if (!core.expanded) continue;
            rows.insert(rows.end(), models[nc].begin(), models[nc].end());
            // The real tool's categories under each core (tools.md 2).
            for (const auto& [label, bytes] : {std::pair<const char*, uint64_t>{"Tensors", categories[nc].tensors},
                                               {"Constants", categories[nc].constants},
                                               {"Model Code", categories[nc].model_code},
                                               {"Runtime Memory", 0},
                                               {"Model Scratchpad", 0}}) {
                TreeRow category;
                category.depth = 2;
                category.label = label;
                category.device_bytes = bytes;
                rows.push_back(category);
            }
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
