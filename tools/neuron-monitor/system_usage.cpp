#include "neuron-monitor/system_usage.h"

#include <algorithm>
#include <cmath>

#include <fstream>
#include <sstream>

namespace nsim::tools {
namespace {

constexpr size_t kModes = 7;
const char* const kModeNames[kModes] = {"user", "nice", "system", "idle", "io_wait", "irq", "soft_irq"};

nlohmann::json usage_between(const CpuModeTicks& before, const CpuModeTicks& after) {
    uint64_t total = 0;
    for (size_t m = 0; m < kModes; ++m) total += after[m] - std::min(after[m], before[m]);
    nlohmann::json usage = nlohmann::json::object();
    for (size_t m = 0; m < kModes; ++m) {
        const uint64_t ticks = after[m] - std::min(after[m], before[m]);
        usage[kModeNames[m]] = total ? std::round(10000.0 * double(ticks) / double(total)) / 100.0 : 0.0;
    }
    return usage;
}

}  // namespace

ProcStatSample sample_proc_stat() {
    ProcStatSample sample;
    std::ifstream in("/proc/stat");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string name;
        fields >> name;
        if (name.rfind("cpu", 0) == 0) {
            CpuModeTicks ticks(kModes, 0);
            for (size_t m = 0; m < kModes; ++m) fields >> ticks[m];
            if (name == "cpu") sample.all = ticks;
            else sample.cpus.push_back(ticks);
        } else if (name == "ctxt") {
            fields >> sample.context_switches;
        }
    }
    if (sample.all.empty()) sample.all.assign(kModes, 0);
    return sample;
}

nlohmann::json vcpu_usage_json(const ProcStatSample& before, const ProcStatSample& after) {
    nlohmann::json per_cpu = nlohmann::json::object();
    for (size_t c = 0; c < after.cpus.size() && c < before.cpus.size(); ++c)
        per_cpu[std::to_string(c)] = usage_between(before.cpus[c], after.cpus[c]);
    return {{"average_usage", usage_between(before.all, after.all)},
            {"usage_data", per_cpu},
            {"context_switch_count", after.context_switches - std::min(after.context_switches, before.context_switches)}};
}

nlohmann::json memory_info_json() {
    std::map<std::string, uint64_t> kib;
    std::ifstream in("/proc/meminfo");
    std::string name;
    uint64_t value = 0;
    std::string unit;
    while (in >> name >> value) {
        std::getline(in, unit);
        kib[name] = value;
    }
    const uint64_t total = kib["MemTotal:"] * 1024, available = kib["MemAvailable:"] * 1024;
    const uint64_t swap_total = kib["SwapTotal:"] * 1024, swap_free = kib["SwapFree:"] * 1024;
    return {{"memory_total_bytes", total},
            {"memory_used_bytes", total - std::min(total, available)},
            {"swap_total_bytes", swap_total},
            {"swap_used_bytes", swap_total - std::min(swap_total, swap_free)}};
}

}  // namespace nsim::tools
