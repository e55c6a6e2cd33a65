#include "neuron-ls/host_snapshot.h"

#include <algorithm>
#include <set>

#include "config/pci_bdf.h"
#include "activity_publisher.h"
#include "host_state.h"
#include "neuron-ls/instance_id.h"

namespace nsim::tools {
namespace fs = std::filesystem;

std::vector<unsigned> HostSnapshot::devices_of(const driver::ProcessRecord& process) const {
    std::set<unsigned> used(process.open_devices.begin(), process.open_devices.end());
    for (const driver::CoreId& core : process.cores) used.insert(core.device);
    return {used.begin(), used.end()};
}

HostSnapshot read_host_snapshot(const fs::path& home, const config::HostSpec& spec) {
    HostSnapshot snapshot;
    snapshot.spec = spec;
    snapshot.instance_id = simulated_instance_id(home, spec.instance.name);
    snapshot.read_wall_s = driver::wall_clock_now_s();
    snapshot.logical_neuroncore_config = std::max<uint32_t>(1, spec.chip.logical_neuroncore_config);

    std::optional<driver::MachineRecord> machine;
    if (fs::is_directory(home / "hosts" / spec.instance.name)) {
        const driver::HostState state(home, spec.instance.name);
        machine = state.read_machine();
        snapshot.processes = state.live_processes();
        snapshot.activity = state.live_activity();
    }
    if (machine) snapshot.driver_loaded = machine->driver_loaded;
    std::sort(snapshot.processes.begin(), snapshot.processes.end(),
              [](const auto& a, const auto& b) { return a.pid < b.pid; });

    const uint32_t nc_count = spec.chip.cores_per_device / snapshot.logical_neuroncore_config;
    for (unsigned d = 0; d < spec.instance.devices; ++d) {
        DeviceView device;
        device.index = d;
        // The driver's probed address when it has published one, else where the config puts the device.
        std::string bdf = d < spec.instance.pci_bdfs.size() ? spec.instance.pci_bdfs[d] : "";
        if (machine && d < machine->devices.size() && !machine->devices[d].bdf.empty()) bdf = machine->devices[d].bdf;
        device.bdf = config::canonical_pci_bdf(bdf).value_or(bdf);
        device.long_bdf = config::long_pci_bdf(bdf).value_or(bdf);
        device.nc_count = nc_count;
        for (uint32_t c = 0; c < nc_count; ++c) device.neuroncore_ids.push_back(d * nc_count + c);
        device.memory_bytes = spec.chip.memory.total_bytes();
        if (d < spec.instance.connected_to.size()) device.connected_to = spec.instance.connected_to[d];
        device.numa_node = d < spec.instance.device_numa_nodes.size() ? spec.instance.device_numa_nodes[d] : -1;
        if (device.numa_node >= 0 && size_t(device.numa_node) < spec.instance.numa_node_cpus.size()) {
            device.cpu_affinity = spec.instance.numa_node_cpus[device.numa_node];
        } else {
            for (uint32_t cpu = 0; cpu < spec.instance.vcpus; ++cpu) device.cpu_affinity.push_back(cpu);
        }
        snapshot.devices.push_back(device);
    }
    return snapshot;
}

}  // namespace nsim::tools
