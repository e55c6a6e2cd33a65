// neuron-monitor's report (tools.md 3.2): what one simulated host's state directory says, in the real
// tool's JSON groups and key names. Runtime groups per Neuron process whose tag the config selects
// (neuroncore_counters with utilisation and FLOP/s, memory_used with the per-core categories and the
// loaded models, neuron_runtime_vcpu_usage, execution_stats with outcome counts and latency
// percentiles of the executions in the period); system groups (neuron_hw_counters with the
// firmware's ECC counts, vcpu_usage, memory_info); and always instance_info and neuron_hardware_info.
// Each group carries "period" (seconds since it was last captured) and "error".
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "config/host_spec.h"
#include "neuron-ls/host_snapshot.h"
#include "neuron-monitor/monitor_config.h"
#include "neuron-monitor/system_usage.h"
#include "neuron-top/cpu_usage.h"

namespace nsim::tools {

class MonitorReporter {
public:
    MonitorReporter(std::filesystem::path home, config::HostSpec spec, MonitorConfig config);

    // Seconds until the next group is due (0: now).
    double seconds_until_due() const;
    // Reads the host and returns the report of the groups due now; the first report, due once the
    // shortest period has passed since the reporter was made, has them all, measured from then.
    nlohmann::json next_report();

private:
    struct GroupClock {
        double last_s = -1;          // steady-clock seconds of the last capture
    };
    bool due(const std::string& key, double period_s, double now_s) const;
    double take_period(const std::string& key, double now_s);
    nlohmann::json runtime_report(const HostSnapshot& host, const driver::ProcessRecord& process, size_t selection,
                                  const CpuSample& cpu_now, double now_s);
    nlohmann::json execution_stats(const driver::ActivityRecord* activity, int pid);

    std::filesystem::path home_;
    config::HostSpec spec_;
    MonitorConfig config_;
    double started_s_ = 0;   // steady-clock seconds when the reporter was made
    std::map<std::string, GroupClock> clocks_;
    std::map<int, driver::ExecutionStats> executions_seen_;   // per pid: what earlier reports counted
    ProcStatSample last_stat_;
    CpuSample last_cpu_;
};

}  // namespace nsim::tools
