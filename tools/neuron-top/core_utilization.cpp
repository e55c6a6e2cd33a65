#include "neuron-top/core_utilization.h"

#include <algorithm>

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

std::vector<std::vector<double>> core_utilization(const HostSnapshot& host, int pid) {
    const uint32_t lnc = host.logical_neuroncore_config;
    std::vector<std::vector<double>> physical(host.devices.size(), std::vector<double>(host.spec.chip.cores_per_device, 0.0));
    for (const driver::ActivityRecord& record : host.activity) {
        if (pid != 0 && record.pid != pid) continue;
        if (!activity_is_current(record, host.read_wall_s)) continue;
        for (const driver::CoreActivity& core : record.cores) {
            if (core.samples.empty() || core.core.device >= physical.size() || core.core.core >= physical[core.core.device].size())
                continue;
            const driver::ActivitySample& last = core.samples.back();
            if (last.interval_s <= 0) continue;
            double& busy = physical[core.core.device][core.core.core];
            // Two processes on one core (which the runtime refuses) cannot make it more than busy.
            busy = std::min(1.0, busy + std::clamp(last.busy_s / last.interval_s, 0.0, 1.0));
        }
    }
    std::vector<std::vector<double>> logical(host.devices.size());
    for (size_t d = 0; d < host.devices.size(); ++d) {
        logical[d].assign(host.devices[d].nc_count, 0.0);
        for (uint32_t nc = 0; nc < host.devices[d].nc_count; ++nc) {
            double sum = 0;
            for (uint32_t i = 0; i < lnc && nc * lnc + i < physical[d].size(); ++i) sum += physical[d][nc * lnc + i];
            logical[d][nc] = sum / lnc;
        }
    }
    return logical;
}

}  // namespace nsim::tools
