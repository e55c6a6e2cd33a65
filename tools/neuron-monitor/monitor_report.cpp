#include "neuron-monitor/monitor_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "host_state.h"
#include "neuron-top/core_utilization.h"
#include "neuron-top/top_screen.h"

namespace nsim::tools {
namespace {

double steady_now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

nlohmann::json with_envelope(nlohmann::json group, double period_s) {
    group["period"] = period_s;
    group["error"] = "";
    return group;
}

// The real tool's percentiles of the period's latencies (nearest rank); null when nothing ran.
nlohmann::json latency_percentiles(std::vector<double> seconds) {
    nlohmann::json out = nlohmann::json::object();
    std::sort(seconds.begin(), seconds.end());
    for (int p : {0, 1, 25, 50, 75, 99, 100}) {
        const std::string key = fmt::format("p{}", p);
        if (seconds.empty()) {
            out[key] = nullptr;
            continue;
        }
        const size_t rank = size_t(std::ceil(p / 100.0 * double(seconds.size())));
        out[key] = seconds[std::clamp<size_t>(rank, 1, seconds.size()) - 1];
    }
    return out;
}

std::vector<double> newest(const std::vector<double>& values, uint64_t count) {
    const size_t n = size_t(std::min<uint64_t>(count, values.size()));
    return std::vector<double>(values.end() - long(n), values.end());
}

uint64_t delta(uint64_t now, uint64_t before) { return now - std::min(now, before); }

const driver::ActivityRecord* activity_of(const HostSnapshot& host, int pid) {
    for (const auto& record : host.activity)
        if (record.pid == pid) return &record;
    return nullptr;
}

nlohmann::json core_categories(const driver::CoreMemoryUsage& usage) {
    return {{"constants", usage.constants}, {"model_code", usage.model_code}, {"model_shared_scratchpad", 0},
            {"runtime_memory", 0}, {"tensors", usage.tensors}};
}

}  // namespace

MonitorReporter::MonitorReporter(std::filesystem::path home, config::HostSpec spec, MonitorConfig config)
    : home_(std::move(home)), spec_(std::move(spec)), config_(std::move(config)) {
    // The first report measures from now (started_s_), the CPU counters and each running process's
    // execution counts too: a report at once covered a zero-length interval (CPU usage all zeros, idle
    // too) and counted every execution since the runtime started while labelled with one period.
    started_s_ = steady_now_s();
    const HostSnapshot host = read_host_snapshot(home_, spec_);
    std::vector<int> pids;
    for (const auto& process : host.processes) {
        pids.push_back(process.pid);
        if (const driver::ActivityRecord* activity = activity_of(host, process.pid))
            executions_seen_[process.pid] = activity->executions;
    }
    last_cpu_ = sample_cpu(pids);
    last_stat_ = sample_proc_stat();
}

bool MonitorReporter::due(const std::string& key, double period_s, double now_s) const {
    const auto it = clocks_.find(key);
    // A little early counts as due, so that a group of the base period is in every report.
    return it == clocks_.end() || now_s - it->second.last_s >= 0.98 * period_s;
}

double MonitorReporter::take_period(const std::string& key, double now_s) {
    GroupClock& clock = clocks_[key];
    const double period = now_s - (clock.last_s < 0 ? started_s_ : clock.last_s);
    clock.last_s = now_s;
    return period;
}

double MonitorReporter::seconds_until_due() const {
    const double now = steady_now_s();
    double wait = std::numeric_limits<double>::max();
    auto consider = [&](const std::string& key, double period_s) {
        const auto it = clocks_.find(key);
        // Before the first report, its groups wait for the shortest period; the first report has them all.
        const double last = it == clocks_.end() ? started_s_ : it->second.last_s;
        wait = std::min(wait, std::max(0.0, last + 0.98 * period_s - now));
    };
    for (size_t r = 0; r < config_.runtimes.size(); ++r)
        for (const MetricGroup& g : config_.runtimes[r].metrics) consider(fmt::format("runtime{}.{}", r, g.type), g.period_s);
    for (const MetricGroup& g : config_.system) consider("system." + g.type, g.period_s);
    return wait == std::numeric_limits<double>::max() ? config_.period_s : wait;
}

nlohmann::json MonitorReporter::execution_stats(const driver::ActivityRecord* activity, int pid) {
    const driver::ExecutionStats now = activity ? activity->executions : driver::ExecutionStats{};
    driver::ExecutionStats& seen = executions_seen_[pid];
    const uint64_t completed = delta(now.completed, seen.completed);
    const uint64_t with_err = delta(now.completed_with_err, seen.completed_with_err);
    const uint64_t timed_out = delta(now.timed_out, seen.timed_out);
    const uint64_t failed = delta(now.failed, seen.failed);
    nlohmann::json stats = {
        {"error_summary", {{"generic", with_err}, {"numerical", 0}, {"transient", 0}, {"model", 0}, {"runtime", failed},
                           {"hardware", 0}}},
        {"execution_summary", {{"completed", completed}, {"completed_with_err", with_err}, {"completed_with_num_err", 0},
                               {"timed_out", timed_out}, {"incorrect_input", 0}, {"failed_to_queue", 0}}},
        {"latency_stats", {{"total_latency", latency_percentiles(newest(now.total_latency_s, completed))},
                           {"device_latency", latency_percentiles(newest(now.device_latency_s, completed))}}}};
    seen = now;
    return stats;
}

nlohmann::json MonitorReporter::runtime_report(const HostSnapshot& host, const driver::ProcessRecord& process,
                                               size_t selection, const CpuSample& cpu_now, double now_s) {
    const int pid = process.pid;
    const uint32_t lnc = std::max<uint32_t>(1, host.logical_neuroncore_config);
    const std::vector<unsigned> devices = host.devices_of(process);
    nlohmann::json report = nlohmann::json::object();
    for (const MetricGroup& group : config_.runtimes[selection].metrics) {
        const std::string key = fmt::format("runtime{}.{}", selection, group.type);
        if (!due(key, group.period_s, now_s)) continue;
        const double period = now_s - (clocks_.count(key) ? clocks_[key].last_s : started_s_);
        nlohmann::json data;
        if (group.type == "neuroncore_counters") {
            const auto utilization = core_utilization(host, pid);
            const auto physical = physical_core_utilization(host, pid);
            const auto flops = core_flops_per_s(host, pid);
            nlohmann::json in_use = nlohmann::json::object();
            for (unsigned d : devices)
                for (uint32_t nc = 0; nc < host.devices[d].nc_count; ++nc) {
                    const uint32_t index = host.devices[d].neuroncore_ids[nc];
                    nlohmann::json core = {{"neuroncore_utilization", 100.0 * utilization[d][nc]}, {"flops", flops[d][nc]}};
                    // trn2 with two physical cores per logical one: each physical core's share (tools.md 3.2).
                    if (lnc > 1) {
                        nlohmann::json parts = nlohmann::json::object();
                        for (uint32_t i = 0; i < lnc && nc * lnc + i < physical[d].size(); ++i)
                            parts[fmt::format("nc_{}.{}", spec_.chip.core.version, index * lnc + i)] = {
                                {"neuroncore_utilization", 100.0 * physical[d][nc * lnc + i]}};
                        core["v3d"] = parts;
                    }
                    in_use[std::to_string(index)] = core;
                }
            data = {{"neuroncores_in_use", in_use}};
        } else if (group.type == "memory_used") {
            std::map<uint32_t, driver::CoreMemoryUsage> per_core;
            for (unsigned d : devices)
                for (uint32_t nc = 0; nc < host.devices[d].nc_count; ++nc) per_core[host.devices[d].neuroncore_ids[nc]];
            uint64_t host_tensors = 0, device_bytes = 0;
            nlohmann::json models = nlohmann::json::array();
            for (const driver::ModelRecord& model : process.models) {
                host_tensors += model.host_bytes;
                driver::CoreMemoryUsage total;
                for (const driver::CoreMemoryUsage& usage : model.core_memory) {
                    if (usage.core.device >= host.devices.size()) continue;
                    const auto& ids = host.devices[usage.core.device].neuroncore_ids;
                    if (usage.core.core / lnc >= ids.size()) continue;
                    driver::CoreMemoryUsage& core = per_core[ids[usage.core.core / lnc]];
                    core.constants += usage.constants, total.constants += usage.constants;
                    core.model_code += usage.model_code, total.model_code += usage.model_code;
                    core.tensors += usage.tensors, total.tensors += usage.tensors;
                }
                const driver::CoreId first = model.cores.empty() ? driver::CoreId{} : model.cores.front();
                const uint32_t first_nc = first.device < host.devices.size() && first.core / lnc < host.devices[first.device].neuroncore_ids.size()
                                              ? host.devices[first.device].neuroncore_ids[first.core / lnc] : 0;
                models.push_back(
                    {{"name", model.name},
                     {"uuid", fmt::format("{:016x}{:016x}", uint64_t(pid), uint64_t(model.id))},
                     {"model_id", model.id},
                     {"is_running", false},
                     {"subgraphs",
                      {{"sg_00",
                        {{"memory_used_bytes",
                          {{"host", model.host_bytes},
                           {"neuron_device", model.device_bytes},
                           {"usage_breakdown",
                            {{"host", {{"application_memory", 0}, {"constants", 0}, {"dma_buffers", 0}, {"tensors", model.host_bytes}}},
                             {"neuron_device", {{"constants", total.constants}, {"model_code", total.model_code},
                                                {"runtime_memory", 0}, {"tensors", total.tensors}}}}}}},
                         {"neuroncore_index", first_nc},
                         {"neuron_device_index", first.device}}}}}});
            }
            for (const auto& [channel, bytes] : process.device_memory_bytes) device_bytes += bytes;
            nlohmann::json cores = nlohmann::json::object();
            for (const auto& [index, usage] : per_core) cores[std::to_string(index)] = core_categories(usage);
            const uint64_t application = resident_bytes(pid);
            const uint64_t dma_buffers = process.host_memory_bytes - std::min(process.host_memory_bytes, host_tensors);
            data = {{"neuron_runtime_used_bytes",
                     {{"host", application + process.host_memory_bytes},
                      {"neuron_device", device_bytes},
                      {"usage_breakdown",
                       {{"host", {{"application_memory", application}, {"constants", 0}, {"dma_buffers", dma_buffers},
                                  {"tensors", host_tensors}}},
                        {"neuroncore_memory_usage", cores}}}}},
                    {"loaded_models", models}};
        } else if (group.type == "neuron_runtime_vcpu_usage") {
            const CpuUsage usage = cpu_usage(last_cpu_, cpu_now, {pid});
            data = {{"vcpu_usage", {{"user", 100.0 * usage.runtime.user}, {"system", 100.0 * usage.runtime.system}}}};
        } else {
            data = execution_stats(activity_of(host, pid), pid);
        }
        report[group.type] = with_envelope(data, period);
    }
    return report;
}

nlohmann::json MonitorReporter::next_report() {
    const double now = steady_now_s();
    const HostSnapshot host = read_host_snapshot(home_, spec_);
    std::vector<int> pids;
    for (const auto& process : host.processes) pids.push_back(process.pid);
    const CpuSample cpu_now = sample_cpu(pids);

    nlohmann::json runtimes = nlohmann::json::array();
    for (const driver::ProcessRecord& process : host.processes) {
        const std::string tag = process_tag(host, process.pid);
        for (size_t s = 0; s < config_.runtimes.size(); ++s) {
            if (!std::regex_match(tag, config_.runtimes[s].tag_pattern)) continue;
            runtimes.push_back({{"pid", process.pid},
                                {"address", ""},
                                {"neuron_runtime_tag", tag},
                                {"error", ""},
                                {"report", runtime_report(host, process, s, cpu_now, now)}});
            break;
        }
    }
    // The runtime groups' clocks move once for every process they reported on.
    for (size_t s = 0; s < config_.runtimes.size(); ++s)
        for (const MetricGroup& g : config_.runtimes[s].metrics) {
            const std::string key = fmt::format("runtime{}.{}", s, g.type);
            if (due(key, g.period_s, now)) take_period(key, now);
        }
    last_cpu_ = cpu_now;

    nlohmann::json system = nlohmann::json::object();
    for (const MetricGroup& group : config_.system) {
        const std::string key = "system." + group.type;
        if (!due(key, group.period_s, now)) continue;
        const double period = take_period(key, now);
        nlohmann::json data;
        if (group.type == "vcpu_usage") {
            const ProcStatSample stat = sample_proc_stat();
            data = vcpu_usage_json(last_stat_, stat);
            last_stat_ = stat;
        } else if (group.type == "memory_info") {
            data = memory_info_json();
        } else {
            nlohmann::json devices = nlohmann::json::array();
            const auto machine = driver::HostState(home_, spec_.instance.name).read_machine();
            for (const DeviceView& device : host.devices) {
                uint64_t mem_corrected = 0, mem_uncorrected = 0, sram_corrected = 0, sram_uncorrected = 0;
                if (machine && device.index < machine->devices.size()) {
                    // The firmware's words: corrected in the upper, uncorrected in the lower half.
                    for (uint32_t word : machine->devices[device.index].memory_ecc)
                        mem_corrected += word >> 16, mem_uncorrected += word & 0xffff;
                    sram_corrected = machine->devices[device.index].sram_ecc >> 16;
                    sram_uncorrected = machine->devices[device.index].sram_ecc & 0xffff;
                }
                devices.push_back({{"neuron_device_index", device.index}, {"mem_ecc_corrected", mem_corrected},
                                   {"mem_ecc_uncorrected", mem_uncorrected}, {"sram_ecc_uncorrected", sram_uncorrected},
                                   {"sram_ecc_corrected", sram_corrected}});
            }
            data = {{"neuron_devices", devices}};
        }
        system[group.type] = with_envelope(data, period);
    }

    const uint32_t lnc = std::max<uint32_t>(1, host.logical_neuroncore_config);
    return {{"neuron_runtime_data", runtimes},
            {"system_data", system},
            {"instance_info",
             {{"instance_name", ""}, {"instance_id", host.instance_id}, {"instance_type", spec_.instance.name},
              {"instance_availability_zone", ""}, {"instance_availability_zone_id", ""}, {"instance_region", ""},
              {"ami_id", ""}, {"subnet_id", ""}, {"error", ""}}},
            {"neuron_hardware_info",
             {{"neuron_device_type", spec_.chip.name},
              {"neuroncore_version", spec_.chip.core.version + (lnc > 1 ? "d" : "")},
              {"neuron_device_count", host.devices.size()},
              {"neuron_device_memory_size", spec_.chip.memory.total_bytes()},
              {"neuroncore_per_device_count", host.devices.empty() ? 0 : host.devices.front().nc_count},
              {"logical_neuroncore_config", lnc},
              {"error", ""}}}};
}

}  // namespace nsim::tools
