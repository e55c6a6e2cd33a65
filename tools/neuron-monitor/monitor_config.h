// neuron-monitor's configuration file, in the real tool's shape (tools.md 3.1): a default "period",
// "neuron_runtimes" - each a "tag_filter" regex over the runtimes' tags (NEURON_PROCESS_TAG, else
// the pid) and the runtime metric groups to report for them - and "system_metrics", each group with
// an optional "period" of its own. Without a file: every group, every runtime, every 5 s.
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace nsim::tools {

struct MetricGroup {
    std::string type;          // "neuroncore_counters", "vcpu_usage", ...
    double period_s = 0;
};

struct RuntimeSelection {
    std::string tag_filter = ".*";
    std::regex tag_pattern{".*"};
    std::vector<MetricGroup> metrics;
};

struct MonitorConfig {
    double period_s = 5;
    std::vector<RuntimeSelection> runtimes;
    std::vector<MetricGroup> system;
};

const std::vector<std::string>& runtime_metric_types();
const std::vector<std::string>& system_metric_types();

MonitorConfig default_monitor_config();
// UserError (one line naming the file) for a file that cannot be read or is not of this shape.
MonitorConfig read_monitor_config(const std::string& path);
// "1s", "500ms", "2m", "0.5" (seconds); UserError otherwise.
double parse_period(const std::string& text);

}  // namespace nsim::tools
