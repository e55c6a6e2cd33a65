// vCPU and memory use of the machine the simulator runs on and of the processes simulating the
// Neuron apps, from /proc: two samples of the clock-tick counters give the share of all vCPUs each
// spent in user and system mode in between (neuron-top's "System" and "Runtime vCPU Usage").
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace nsim::tools {

struct CpuTicks {
    uint64_t user = 0;
    uint64_t system = 0;
};

struct CpuSample {
    CpuTicks machine;
    uint64_t machine_total = 0;             // every tick of every vCPU, idle included
    std::map<int, CpuTicks> processes;      // by pid; a process that is gone is missing
};

CpuSample sample_cpu(const std::vector<int>& pids);

struct CpuShare {
    double user = 0;                        // fractions of all vCPUs' time
    double system = 0;
};

struct CpuUsage {
    CpuShare machine;
    CpuShare runtime;                       // the processes in `pids`, together
};

// Between two samples; a process present in only one of them counts as idle.
CpuUsage cpu_usage(const CpuSample& before, const CpuSample& after, const std::vector<int>& pids);

// Resident set size of a process, 0 when it is gone.
uint64_t resident_bytes(int pid);

}  // namespace nsim::tools
