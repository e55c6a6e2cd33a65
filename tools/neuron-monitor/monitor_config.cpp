#include "neuron-monitor/monitor_config.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "isa/bounded_file.h"

namespace nsim::tools {
namespace {

// The real tool's configurations are a few hundred bytes; 1 MiB leaves room for any hand-written one
// and refuses /dev/zero or a huge file before reading it.
constexpr uint64_t kMaxConfigFileBytes = uint64_t(1) << 20;

MetricGroup read_group(const nlohmann::json& entry, const std::vector<std::string>& known, double period_s) {
    if (!entry.is_object() || !entry.contains("type") || !entry["type"].is_string())
        throw UserError("every metric needs a \"type\"");
    MetricGroup group{entry["type"].get<std::string>(), period_s};
    if (std::find(known.begin(), known.end(), group.type) == known.end())
        throw UserError(fmt::format("unknown metric type '{}' (one of: {})", group.type, fmt::join(known, ", ")));
    if (entry.contains("period")) group.period_s = parse_period(entry["period"].get<std::string>());
    return group;
}

}  // namespace

const std::vector<std::string>& runtime_metric_types() {
    static const std::vector<std::string> types = {"neuroncore_counters", "memory_used", "neuron_runtime_vcpu_usage",
                                                   "execution_stats"};
    return types;
}

const std::vector<std::string>& system_metric_types() {
    static const std::vector<std::string> types = {"vcpu_usage", "memory_info", "neuron_hw_counters"};
    return types;
}

double parse_period(const std::string& text) {
    size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = text.substr(used);
    const double scale = unit.empty() || unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
    if (used == 0 || scale < 0 || value <= 0)
        throw UserError(fmt::format("period '{}' is not a duration such as 1s or 500ms", text));
    return value * scale;
}

MonitorConfig default_monitor_config() {
    MonitorConfig config;
    RuntimeSelection all;
    for (const std::string& type : runtime_metric_types()) all.metrics.push_back({type, config.period_s});
    config.runtimes.push_back(all);
    for (const std::string& type : system_metric_types()) config.system.push_back({type, config.period_s});
    return config;
}

MonitorConfig read_monitor_config(const std::string& path) {
    std::string text;
    try {
        text = isa::read_bounded_text(path, kMaxConfigFileBytes, "monitor config file");
    } catch (const isa::FileError& e) {
        throw UserError(e.what());
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (!j.is_object()) throw UserError("the file is not a JSON object");
        MonitorConfig config;
        if (j.contains("period")) config.period_s = parse_period(j["period"].get<std::string>());
        for (const auto& runtime : j.value("neuron_runtimes", nlohmann::json::array())) {
            RuntimeSelection selection;
            selection.tag_filter = runtime.value("tag_filter", std::string(".*"));
            try {
                selection.tag_pattern = std::regex(selection.tag_filter);
            } catch (const std::regex_error&) {
                throw UserError(fmt::format("tag_filter '{}' is not a regular expression", selection.tag_filter));
            }
            for (const auto& metric : runtime.value("metrics", nlohmann::json::array()))
                selection.metrics.push_back(read_group(metric, runtime_metric_types(), config.period_s));
            config.runtimes.push_back(selection);
        }
        for (const auto& metric : j.value("system_metrics", nlohmann::json::array()))
            config.system.push_back(read_group(metric, system_metric_types(), config.period_s));
        return config;
    } catch (const nlohmann::json::parse_error& e) {
        throw UserError(fmt::format("{}: not valid JSON ({})", path, e.what()));
    } catch (const nlohmann::json::exception& e) {   // a value of the wrong type, a number past double
        throw UserError(fmt::format("{}: {}", path, e.what()));
    } catch (const UserError& e) {
        throw UserError(fmt::format("{}: {}", path, e.what()));
    }
}

}  // namespace nsim::tools
