// What neuron-monitor's system groups report about the machine the simulator runs on, from /proc:
// per-vCPU time in each mode between two samples of /proc/stat (vcpu_usage), the context switches,
// and /proc/meminfo (memory_info).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nsim::tools {

// Clock ticks per mode of one vCPU: user, nice, system, idle, iowait, irq, softirq.
using CpuModeTicks = std::vector<uint64_t>;

struct ProcStatSample {
    CpuModeTicks all;
    std::vector<CpuModeTicks> cpus;
    uint64_t context_switches = 0;
};

ProcStatSample sample_proc_stat();

// vcpu_usage's data: "average_usage", "usage_data" per vCPU (percent per mode) and "context_switch_count".
nlohmann::json vcpu_usage_json(const ProcStatSample& before, const ProcStatSample& after);

// memory_info's data: total and used memory and swap, in bytes.
nlohmann::json memory_info_json();

}  // namespace nsim::tools
