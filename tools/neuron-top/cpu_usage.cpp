#include "neuron-top/cpu_usage.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace nsim::tools {
namespace {

CpuTicks machine_ticks(uint64_t* total) {
    std::ifstream in("/proc/stat");
    std::string label;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    if (!in || label != "cpu") {
        *total = 0;
        return {};
    }
    *total = user + nice + system + idle + iowait + irq + softirq + steal;
    return {user + nice, system + irq + softirq};
}

bool process_ticks(int pid, CpuTicks* ticks) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return false;
    // The command (field 2) may hold spaces and parentheses; fields after the last ')' start at 3.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    for (int index = 3; index <= 15 && fields >> field; ++index) {
        if (index == 14) ticks->user = std::stoull(field);
        if (index == 15) ticks->system = std::stoull(field);
    }
    return bool(fields);
}

double share(uint64_t before, uint64_t after, uint64_t total) {
    return total == 0 || after < before ? 0.0 : double(after - before) / double(total);
}

}  // namespace

CpuSample sample_cpu(const std::vector<int>& pids) {
    CpuSample sample;
    sample.machine = machine_ticks(&sample.machine_total);
    for (int pid : pids) {
        CpuTicks ticks;
        if (process_ticks(pid, &ticks)) sample.processes[pid] = ticks;
    }
    return sample;
}

CpuUsage cpu_usage(const CpuSample& before, const CpuSample& after, const std::vector<int>& pids) {
    CpuUsage usage;
    const uint64_t total = after.machine_total > before.machine_total ? after.machine_total - before.machine_total : 0;
    usage.machine = {share(before.machine.user, after.machine.user, total),
                     share(before.machine.system, after.machine.system, total)};
    for (int pid : pids) {
        auto b = before.processes.find(pid);
        auto a = after.processes.find(pid);
        if (b == before.processes.end() || a == after.processes.end()) continue;
        usage.runtime.user += share(b->second.user, a->second.user, total);
        usage.runtime.system += share(b->second.system, a->second.system, total);
    }
    return usage;
}

uint64_t resident_bytes(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/statm");
    uint64_t size = 0, resident = 0;
    if (!(in >> size >> resident)) return 0;
    return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

}  // namespace nsim::tools
