// What neuron-ls and neuron-top show, read from one simulated host's state directory and its
// configuration only (never by elaborating the hardware): the devices as the driver published them,
// the processes using them, and the NeuronCores' recent activity.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "host_state_records.h"

namespace nsim::tools {

struct DeviceView {
    unsigned index = 0;
    std::string bdf;                       // short form "bb:dd.f" when the domain is 0000
    std::string long_bdf;                  // always with the domain, "0000:bb:dd.f"
    uint32_t nc_count = 0;                 // logical NeuronCores, as neuron-ls counts them
    std::vector<uint32_t> neuroncore_ids;  // the logical core ids NEURON_RT_VISIBLE_CORES uses
    uint64_t memory_bytes = 0;
    std::vector<uint32_t> connected_to;
    int32_t numa_node = -1;                // -1 on a host with one unnumbered NUMA node
    std::vector<uint32_t> cpu_affinity;    // the vCPUs of its NUMA node (all of them when -1)
};

struct HostSnapshot {
    config::HostSpec spec;
    std::string instance_id;
    // A host never brought up counts as loaded: a freshly booted instance has the module loaded.
    bool driver_loaded = true;
    uint32_t logical_neuroncore_config = 1;  // physical cores per logical core
    std::vector<DeviceView> devices;
    std::vector<driver::ProcessRecord> processes;   // live ones, by pid
    std::vector<driver::ActivityRecord> activity;   // of live processes
    double read_wall_s = 0;                         // when it was read (the activity records' clock)

    // The devices a process uses: those it has open or holds cores on, ascending.
    std::vector<unsigned> devices_of(const driver::ProcessRecord& process) const;
};

// Reads the host `instance` of the state home `home`. Does not create the host's directory.
HostSnapshot read_host_snapshot(const std::filesystem::path& home, const config::HostSpec& spec);

}  // namespace nsim::tools
