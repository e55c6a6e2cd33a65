// What `neuron-sim train --nodes M` reports beyond one node's training report (training_report.h):
// the cluster (nodes, EFA, how the nodes were spread over the processes), the inter-node phase's time
// per step, the throughput over every node and its scaling efficiency against one node, and how long
// the simulation took per simulated step on each process (host time: the only numbers that differ
// between a run in one process and the same run under mpirun).
// One node's throughput is that of the same program on one instance: the step without its inter-node
// phase (the all-reduce then only the intra-node reduce-scatter and all-gather), each node's sequences
// over that time. Scaling efficiency = throughput / (nodes x one node's throughput).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/host_spec.h"
#include "library/cluster_training.h"

namespace nsim::library {

struct ProcessHostTime {
    double cpu_s_per_step = 0, wall_s_per_step = 0;   // host seconds per simulated optimizer step
    uint32_t nodes = 0;                              // nodes it simulated
};

struct ClusterReport {
    uint32_t nodes = 1, processes = 1;
    std::string instance;
    config::EfaSpec efa;
    double step_s = 0;              // mean over the steps, every node's (the runtime calls + the inter-node phase)
    double inter_node_s = 0;        // mean over the steps
    double throughput_per_s = 0;    // every node's sequences per second
    double single_node_throughput_per_s = 0;
    double scaling_efficiency = 0;
    std::vector<ProcessHostTime> host;   // by process
};

// `cpu_s`, `wall_s`: each process's host seconds over the steps (values_of_every_process).
ClusterReport cluster_report(const config::HostSpec& spec, const TrainingShape& shape, uint32_t processes,
                             const std::vector<ClusterStep>& steps, const std::vector<double>& cpu_s,
                             const std::vector<double>& wall_s);
nlohmann::json cluster_report_json(const ClusterReport& report);
std::string cluster_report_text(const ClusterReport& report);

}  // namespace nsim::library
