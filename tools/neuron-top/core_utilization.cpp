#include "neuron-top/core_utilization.h"

#include <algorithm>
#include <limits>

namespace nsim::tools {

namespace {
// Silence of this many publish periods means a process stopped executing; the floor covers a process
// that has published once, and screen refreshes that come late on a loaded machine.
constexpr double kPublishPeriodsOfSilence = 3;
constexpr double kMinSilenceS = 2;
}  // namespace

bool activity_is_current(const driver::ActivityRecord& record, double now_wall_s) {
    return now_wall_s - record.updated_wall_s <= std::max(kMinSilenceS, kPublishPeriodsOfSilence * record.publish_period_wall_s);
}

namespace {

double busy_fraction(const driver::ActivitySample& s) { return std::clamp(s.busy_s / s.interval_s, 0.0, 1.0); }

// Per physical core, `measure` of its last interval summed over processes (capped at `cap`).
std::vector<std::vector<double>> per_physical_core(const HostSnapshot& host, int pid, double cap,
                                                   double (*measure)(const driver::ActivitySample&)) {
    std::vector<std::vector<double>> physical(host.devices.size(), std::vector<double>(host.spec.chip.cores_per_device, 0.0));
    for (const driver::ActivityRecord& record : host.activity) {
        if (pid != 0 && record.pid != pid) continue;
        if (!activity_is_current(record, host.read_wall_s)) continue;
        for (const driver::CoreActivity& core : record.cores) {
            if (core.samples.empty() || core.core.device >= physical.size() || core.core.core >= physical[core.core.device].size())
                continue;
            const driver::ActivitySample& last = core.samples.back();
            if (last.interval_s <= 0) continue;
            double& value = physical[core.core.device][core.core.core];
            // Two processes on one core (which the runtime refuses) cannot make it more than busy.
            value = std::min(cap, value + measure(last));
        }
    }
    return physical;
}

// Per logical core: its physical cores' values averaged (utilisation) or summed (FLOP/s).
std::vector<std::vector<double>> per_logical_core(const HostSnapshot& host, int pid, double cap, bool average,
                                                  double (*measure)(const driver::ActivitySample&)) {
    const uint32_t lnc = host.logical_neuroncore_config;
    const std::vector<std::vector<double>> physical = per_physical_core(host, pid, cap, measure);
    std::vector<std::vector<double>> logical(host.devices.size());
    for (size_t d = 0; d < host.devices.size(); ++d) {
        logical[d].assign(host.devices[d].nc_count, 0.0);
        for (uint32_t nc = 0; nc < host.devices[d].nc_count; ++nc) {
            double sum = 0;
            for (uint32_t i = 0; i < lnc && nc * lnc + i < physical[d].size(); ++i) sum += physical[d][nc * lnc + i];
            logical[d][nc] = average ? sum / lnc : sum;
        }
    }
    return logical;
}

}  // namespace

std::vector<std::vector<double>> core_utilization(const HostSnapshot& host, int pid) {
    return per_logical_core(host, pid, 1.0, true, busy_fraction);
}

std::vector<std::vector<double>> physical_core_utilization(const HostSnapshot& host, int pid) {
    return per_physical_core(host, pid, 1.0, busy_fraction);
}

std::vector<std::vector<double>> core_flops_per_s(const HostSnapshot& host, int pid) {
    return per_logical_core(host, pid, std::numeric_limits<double>::max(), false,
                            [](const driver::ActivitySample& s) { return s.flops / s.interval_s; });
}

}  // namespace nsim::tools
