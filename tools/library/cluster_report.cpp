#include "library/cluster_report.h"

#include <fmt/format.h>

namespace nsim::library {

ClusterReport cluster_report(const config::HostSpec& spec, const TrainingShape& shape, uint32_t processes,
                             const std::vector<ClusterStep>& steps, const std::vector<double>& cpu_s,
                             const std::vector<double>& wall_s) {
    ClusterReport r;
    r.nodes = shape.nodes;
    r.processes = processes;
    r.instance = spec.instance.name;
    r.efa = spec.instance.efa;
    double single_node_s = 0;
    for (const ClusterStep& s : steps) {
        r.step_s += s.result.step_s / steps.size();
        r.inter_node_s += s.inter_node_s / steps.size();
        single_node_s += s.single_node_step_s() / steps.size();
    }
    const double sequences = shape.sequences_per_step();
    r.throughput_per_s = r.step_s > 0 ? sequences / r.step_s : 0;
    r.single_node_throughput_per_s = single_node_s > 0 ? sequences / shape.nodes / single_node_s : 0;
    r.scaling_efficiency = r.single_node_throughput_per_s > 0
                               ? r.throughput_per_s / (shape.nodes * r.single_node_throughput_per_s)
                               : 0;
    for (uint32_t p = 0; p < processes; ++p) {
        ProcessHostTime& h = r.host.emplace_back();
        h.cpu_s_per_step = steps.empty() ? 0 : cpu_s.at(p) / steps.size();
        h.wall_s_per_step = steps.empty() ? 0 : wall_s.at(p) / steps.size();
        h.nodes = uint32_t(uint64_t(p + 1) * shape.nodes / processes - uint64_t(p) * shape.nodes / processes);
    }
    return r;
}

nlohmann::json cluster_report_json(const ClusterReport& r) {
    nlohmann::json host = nlohmann::json::array();
    for (const ProcessHostTime& h : r.host)
        host.push_back({{"nodes", h.nodes}, {"cpu_s_per_step", h.cpu_s_per_step}, {"wall_s_per_step", h.wall_s_per_step}});
    return {{"nodes", r.nodes},
            {"processes", r.processes},
            {"efa", {{"devices", r.efa.devices}, {"bytes_per_s", r.efa.bytes_per_s}, {"latency_s", r.efa.latency_s}}},
            {"step_s", r.step_s},
            {"inter_node_s", r.inter_node_s},
            {"throughput_per_s", r.throughput_per_s},
            {"single_node_throughput_per_s", r.single_node_throughput_per_s},
            {"scaling_efficiency", r.scaling_efficiency},
            {"simulation_host_time_by_rank", host}};
}

std::string cluster_report_text(const ClusterReport& r) {
    std::string out;
    out += fmt::format("nodes              {:10}  x {} joined by EFA ({} devices of {:.1f} GB/s, {:.0f} us per hop), "
                       "simulated by {} process(es)\n",
                       r.nodes, r.instance, r.efa.devices, r.efa.bytes_per_s / 1e9, r.efa.latency_s * 1e6, r.processes);
    out += fmt::format("inter-node phase   {:10.3f} ms  per step: each core's gradient shard all-reduced across the "
                       "nodes (the cluster model), in the step time above\n",
                       r.inter_node_s * 1e3);
    out += fmt::format("cluster throughput {:10.2f} sequences/s over the {} nodes\n", r.throughput_per_s, r.nodes);
    out += fmt::format("one node           {:10.2f} sequences/s  (the same program's step without the inter-node phase: "
                       "{:.3f} ms)\n",
                       r.single_node_throughput_per_s, (r.step_s - r.inter_node_s) * 1e3);
    out += fmt::format("scaling efficiency {:10.2f} %  (cluster / ({} x one node))\n", r.scaling_efficiency * 100, r.nodes);
    for (size_t p = 0; p < r.host.size(); ++p)
        out += fmt::format("simulation, rank {:<2}{:9.3f} s CPU, {:.3f} s wall per simulated step ({} node(s))\n", p,
                           r.host[p].cpu_s_per_step, r.host[p].wall_s_per_step, r.host[p].nodes);
    return out;
}

}  // namespace nsim::library
