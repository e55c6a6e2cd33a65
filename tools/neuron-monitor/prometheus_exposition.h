// neuron-monitor-prometheus: neuron-monitor's reports as the Prometheus exposition of the real
// exporter (neuron-monitor-prometheus.py; metric names and labels of tools.md 3.4 c): gauges of the
// latest report, counters (`_total`) summed over every report read. Every series carries the
// instance labels (availability_zone, instance_id, instance_name, instance_type, region, subnet_id).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace nsim::tools {

class PrometheusExposition {
public:
    // Takes one neuron-monitor report (one JSON document).
    void update(const nlohmann::json& report);
    // The text format (version 0.0.4), as served on /metrics.
    std::string text() const;
    // Reports read so far.
    size_t reports() const;

private:
    mutable std::mutex mutex_;
    nlohmann::json latest_;
    // Counters: series key (name + labels) -> total.
    std::map<std::string, double> counters_;
    size_t reports_ = 0;
};

}  // namespace nsim::tools
