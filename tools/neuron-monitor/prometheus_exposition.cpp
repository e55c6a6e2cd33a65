#include "neuron-monitor/prometheus_exposition.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace nsim::tools {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Family {
    const char* name;
    const char* type;
    const char* help;
};

// The exporter's metric families, in the order it prints them.
const std::vector<Family>& families() {
    static const std::vector<Family> list = {
        {"neuroncore_utilization_ratio", "gauge", "NeuronCore utilization ratio"},
        {"neuron_runtime_memory_used_bytes", "gauge", "Runtime memory used bytes"},
        {"neuroncore_memory_usage_constants", "gauge", "NeuronCore memory utilization for constants"},
        {"neuroncore_memory_usage_model_code", "gauge", "NeuronCore memory utilization for model_code"},
        {"neuroncore_memory_usage_model_shared_scratchpad", "gauge", "NeuronCore memory utilization for model_shared_scratchpad"},
        {"neuroncore_memory_usage_runtime_memory", "gauge", "NeuronCore memory utilization for runtime_memory"},
        {"neuroncore_memory_usage_tensors", "gauge", "NeuronCore memory utilization for tensors"},
        {"neuron_runtime_vcpu_usage_ratio", "gauge", "Runtime vCPU utilization ratio"},
        {"execution_latency_seconds", "gauge", "Execution latency in seconds"},
        {"execution_status_total", "counter", "Execution status total"},
        {"execution_errors_total", "counter", "Execution errors total"},
        {"hardware_ecc_events_total", "counter", "Hardware ecc events total"},
        {"system_memory_total_bytes", "gauge", "System memory total_bytes bytes"},
        {"system_memory_used_bytes", "gauge", "System memory used_bytes bytes"},
        {"system_swap_total_bytes", "gauge", "System swap total_bytes bytes"},
        {"system_swap_used_bytes", "gauge", "System swap used_bytes bytes"},
        {"system_vcpu_count", "gauge", "System vCPU count"},
        {"system_vcpu_usage_ratio", "gauge", "System CPU utilization ratio"},
        {"instance_info", "gauge", "EC2 instance information"},
        {"neuron_hardware_info", "gauge", "Neuron Hardware Information"},
    };
    return list;
}

std::string escaped(const std::string& value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string series(const std::string& name, Labels labels) {
    std::sort(labels.begin(), labels.end());
    std::string text = name + "{";
    for (size_t i = 0; i < labels.size(); ++i)
        text += fmt::format("{}{}=\"{}\"", i ? "," : "", labels[i].first, escaped(labels[i].second));
    return text + "}";
}

std::string text_of(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    return value.dump();
}

Labels instance_labels(const nlohmann::json& report) {
    const nlohmann::json info = report.value("instance_info", nlohmann::json::object());
    return {{"availability_zone", info.value("instance_availability_zone", "")},
            {"instance_id", info.value("instance_id", "")},
            {"instance_name", info.value("instance_name", "")},
            {"instance_type", info.value("instance_type", "")},
            {"region", info.value("instance_region", "")},
            {"subnet_id", info.value("subnet_id", "")}};
}

Labels with(Labels labels, const Labels& more) {
    labels.insert(labels.end(), more.begin(), more.end());
    return labels;
}

// Every gauge series of a report, by family name.
std::map<std::string, std::vector<std::pair<std::string, double>>> gauges_of(const nlohmann::json& report) {
    std::map<std::string, std::vector<std::pair<std::string, double>>> out;
    const Labels instance = instance_labels(report);
    auto add = [&](const std::string& name, const Labels& labels, double value) { out[name].push_back({series(name, labels), value}); };
    for (const auto& runtime : report.value("neuron_runtime_data", nlohmann::json::array())) {
        const Labels rt = with(instance, {{"runtime_tag", text_of(runtime.value("neuron_runtime_tag", nlohmann::json("")))}});
        const nlohmann::json r = runtime.value("report", nlohmann::json::object());
        if (r.contains("neuroncore_counters"))
            for (const auto& [core, counters] : r["neuroncore_counters"]["neuroncores_in_use"].items())
                add("neuroncore_utilization_ratio", with(rt, {{"neuroncore", core}}),
                    counters.value("neuroncore_utilization", 0.0) / 100.0);
        if (r.contains("memory_used")) {
            const nlohmann::json& used = r["memory_used"]["neuron_runtime_used_bytes"];
            for (const char* location : {"host", "neuron_device"})
                add("neuron_runtime_memory_used_bytes", with(rt, {{"memory_location", location}}), used.value(location, 0.0));
            for (const auto& [core, categories] : used["usage_breakdown"]["neuroncore_memory_usage"].items())
                for (const auto& [category, bytes] : categories.items())
                    add("neuroncore_memory_usage_" + category, with(rt, {{"neuroncore", core}}), bytes.get<double>());
        }
        if (r.contains("neuron_runtime_vcpu_usage"))
            for (const auto& [mode, percent] : r["neuron_runtime_vcpu_usage"]["vcpu_usage"].items())
                add("neuron_runtime_vcpu_usage_ratio", with(rt, {{"usage_type", mode}}), percent.get<double>() / 100.0);
        if (r.contains("execution_stats"))
            for (const auto& [percentile, seconds] : r["execution_stats"]["latency_stats"]["total_latency"].items())
                if (!seconds.is_null())
                    add("execution_latency_seconds", with(rt, {{"percentile", percentile}}), seconds.get<double>());
    }
    const nlohmann::json system = report.value("system_data", nlohmann::json::object());
    if (system.contains("memory_info"))
        for (const char* field : {"memory_total_bytes", "memory_used_bytes", "swap_total_bytes", "swap_used_bytes"})
            add(std::string("system_") + field, instance, system["memory_info"].value(field, 0.0));
    if (system.contains("vcpu_usage")) {
        add("system_vcpu_count", instance, double(system["vcpu_usage"]["usage_data"].size()));
        for (const auto& [mode, percent] : system["vcpu_usage"]["average_usage"].items())
            add("system_vcpu_usage_ratio", with(instance, {{"usage_type", mode}}), percent.get<double>() / 100.0);
    }
    add("instance_info", instance, 1.0);
    const nlohmann::json hardware = report.value("neuron_hardware_info", nlohmann::json::object());
    Labels hw = instance;
    for (const char* field : {"neuron_device_count", "neuron_device_memory_size", "neuroncore_per_device_count"})
        if (hardware.contains(field)) hw.push_back({field, text_of(hardware[field])});
    add("neuron_hardware_info", hw, 1.0);
    return out;
}

}  // namespace

void PrometheusExposition::update(const nlohmann::json& report) {
    const Labels instance = instance_labels(report);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& runtime : report.value("neuron_runtime_data", nlohmann::json::array())) {
        const Labels rt = with(instance, {{"runtime_tag", text_of(runtime.value("neuron_runtime_tag", nlohmann::json("")))}});
        const nlohmann::json r = runtime.value("report", nlohmann::json::object());
        if (!r.contains("execution_stats")) continue;
        for (const auto& [status, count] : r["execution_stats"]["execution_summary"].items())
            counters_[series("execution_status_total", with(rt, {{"status_type", status}}))] += count.get<double>();
        for (const auto& [error, count] : r["execution_stats"]["error_summary"].items())
            counters_[series("execution_errors_total", with(rt, {{"error_type", error}}))] += count.get<double>();
    }
    const nlohmann::json system = report.value("system_data", nlohmann::json::object());
    if (system.contains("neuron_hw_counters"))
        for (const auto& device : system["neuron_hw_counters"]["neuron_devices"])
            for (const char* event : {"mem_ecc_corrected", "mem_ecc_uncorrected", "sram_ecc_corrected", "sram_ecc_uncorrected"}) {
                // The firmware's counts are totals since boot: the counter follows them.
                const std::string key = series("hardware_ecc_events_total",
                                               with(instance, {{"event_type", event},
                                                               {"neuron_device_index", text_of(device["neuron_device_index"])}}));
                counters_[key] = device.value(event, 0.0);
            }
    latest_ = report;
    ++reports_;
}

size_t PrometheusExposition::reports() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reports_;
}

std::string PrometheusExposition::text() const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto gauges = gauges_of(latest_);
    std::string out;
    for (const Family& family : families()) {
        std::vector<std::pair<std::string, double>> values;
        if (auto it = gauges.find(family.name); it != gauges.end()) values = it->second;
        const std::string prefix = std::string(family.name) + "{";
        for (const auto& [key, total] : counters_)
            if (key.rfind(prefix, 0) == 0) values.push_back({key, total});
        if (values.empty()) continue;
        out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family.name, family.help, family.name, family.type);
        for (const auto& [key, value] : values) out += fmt::format("{} {}\n", key, value);
    }
    return out;
}

}  // namespace nsim::tools
