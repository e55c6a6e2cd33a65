// Data-parallel training on several instances ("nodes") joined by EFA, as the pretraining tutorial
// runs it on two trn1.32xlarge (training.md A1.3, A2.2): a program built for them (neuron-build
// bert-train --nodes M: each node accumulates grad_accum micro-steps of its own micro-batches) runs
// on every node, and each optimizer step's gradient all-reduce is hierarchical - the program's
// "reduce-scatter" graph on each node, then the inter-node all-reduce of every core's shard of every
// bucket over EFA (library/inter_node_phase.h: the cluster model's time; functionally the shards
// summed across the nodes in fp32 in node order and written back), then its "all-gather" graph, then
// the optimizer.
// The nodes are spread over the processes of the run (library/node_exchange.h: mpirun's ranks, or
// all in this one). A process simulates its nodes on its one loaded program: a functional run runs
// each with its own device state swapped in (library/node_device_state.h); a timing run simulates
// the first only. Either way the process's nodes take its first node's times (every node runs the
// same instructions, and timing reads no data). Processes exchange only arrival times, shards and
// losses, so every number is the same whichever way the nodes are spread.
#pragma once

#include <memory>
#include <vector>

#include "library/node_device_state.h"
#include "library/node_exchange.h"
#include "library/training_run.h"

namespace nsim::library {

struct ClusterStep {
    TrainingStepResult result;   // as every node ran it, with the loss averaged over all the nodes
    double inter_node_s = 0;     // the inter-node phase (from the last node's arrival)
    // One node's step: result.step_s without the inter-node phase (what the program's step takes on
    // one instance, its all-reduce intra-node only), the base of the scaling efficiency.
    double single_node_step_s() const { return result.step_s - inter_node_s; }
};

class ClusterTraining {
public:
    // `nodes` already spread over shape.nodes nodes. Error (one line) when the program's gradient
    // buckets are missing (not built with --nodes).
    ClusterTraining(Session& session, NodeExchange& nodes, const TrainingShape& shape, const TrainingSchedule& schedule,
                    const TrainingData& data);
    ClusterStep step();

private:
    struct Bucket {
        uint64_t offset = 0, elements = 0;
    };
    // Each rank's buffer of each bucket for the inter-node phase: [bucket][rank].
    using Shards = std::vector<std::vector<std::vector<uint8_t>>>;
    Shards read_shards();
    void write_shards(const Shards& shards);
    void activate(uint32_t local_node);

    Session& session_;
    NodeExchange& nodes_;
    TrainingShape shape_;
    std::vector<Bucket> buckets_;
    std::vector<std::unique_ptr<TrainingRun>> runs_;   // by simulated local node
    std::unique_ptr<NodeDeviceStates> states_;         // functional, several local nodes
};

// Every process's `value`, by process (the same on every process): what rank 0 reports of the others.
std::vector<double> values_of_every_process(NodeExchange& nodes, double value);

}  // namespace nsim::library
