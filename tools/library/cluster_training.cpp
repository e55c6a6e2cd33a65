#include "library/cluster_training.h"

#include <cstring>

#include <fmt/format.h>

#include "library/inter_node_phase.h"
#include "library/library_error.h"
#include "train/gradient_all_reduce.h"

namespace nsim::library {
namespace {

std::vector<uint8_t> bytes_of(double value) {
    std::vector<uint8_t> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
}

double value_of(const std::vector<uint8_t>& bytes) {
    double value = 0;
    if (bytes.size() != sizeof value) throw Error("cluster exchange: a value of the wrong size from another node");
    std::memcpy(&value, bytes.data(), sizeof value);
    return value;
}

// Every node's `local[i]` (this process's nodes, in order), in node order.
std::vector<double> values_of_every_node(NodeExchange& nodes, const std::vector<double>& local) {
    std::vector<NodeArrival> mine(local.size());
    for (size_t i = 0; i < local.size(); ++i) {
        mine[i].node = nodes.first_local_node() + uint32_t(i);
        mine[i].rank_data = {bytes_of(local[i])};
    }
    std::vector<double> all;
    for (const NodeArrival& a : nodes.exchange(mine)) all.push_back(a.rank_data.empty() ? 0.0 : value_of(a.rank_data.front()));
    return all;
}

}  // namespace

std::vector<double> values_of_every_process(NodeExchange& nodes, const double value) {
    // A process's first node carries its value, the others none.
    std::vector<NodeArrival> mine(nodes.local_node_count());
    for (uint32_t i = 0; i < mine.size(); ++i) mine[i].node = nodes.first_local_node() + i;
    if (!mine.empty()) mine.front().rank_data = {bytes_of(value)};
    std::vector<double> values;
    for (const NodeArrival& a : nodes.exchange(mine))
        if (!a.rank_data.empty()) values.push_back(value_of(a.rank_data.front()));
    return values;
}

ClusterTraining::ClusterTraining(Session& session, NodeExchange& nodes, const TrainingShape& shape,
                                 const TrainingSchedule& schedule, const TrainingData& data)
    : session_(session), nodes_(nodes), shape_(shape) {
    for (const isa::TensorInfo& t : session.program().tensors)
        if (kernels::train::is_gradient_bucket(t.name) && t.shape.size() == 2) buckets_.push_back({t.offset, t.shape[1]});
    if (buckets_.empty())
        throw Error("the training program has no gradient buckets to all-reduce across nodes (build it with neuron-build "
                    "bert-train --nodes)");
    const uint32_t simulated = session.functional() ? nodes.local_node_count() : 1;
    for (uint32_t i = 0; i < simulated; ++i)
        runs_.push_back(std::make_unique<TrainingRun>(session, shape, schedule, data, nodes.first_local_node() + i));
    if (simulated > 1) states_ = std::make_unique<NodeDeviceStates>(session, simulated);
}

void ClusterTraining::activate(uint32_t local_node) {
    if (states_) states_->activate(local_node);
}

ClusterTraining::Shards ClusterTraining::read_shards() {
    Shards shards;
    for (const Bucket& b : buckets_) {
        const kernels::train::BucketShards s = kernels::train::bucket_shards(b.elements, shape_.cores);
        std::vector<std::vector<uint8_t>>& ranks = shards.emplace_back();
        for (uint32_t core = 0; core < shape_.cores; ++core)
            ranks.push_back(read_core_region(session_, core, b.offset, s.shard * 4));
        // The tail (all-reduced inside the node already) crosses the nodes with rank 0's shard.
        const std::vector<uint8_t> tail = read_core_region(session_, 0, b.offset + s.shard * shape_.cores * 4, s.tail * 4);
        ranks.front().insert(ranks.front().end(), tail.begin(), tail.end());
    }
    return shards;
}

void ClusterTraining::write_shards(const Shards& shards) {
    for (size_t k = 0; k < buckets_.size(); ++k) {
        const Bucket& b = buckets_[k];
        const kernels::train::BucketShards s = kernels::train::bucket_shards(b.elements, shape_.cores);
        const std::vector<uint8_t>& first = shards.at(k).at(0);
        const std::vector<uint8_t> tail(first.begin() + long(s.shard * 4), first.end());
        for (uint32_t core = 0; core < shape_.cores; ++core) {
            const std::vector<uint8_t>& shard = shards[k].at(core);
            write_core_region(session_, core, b.offset,
                              std::vector<uint8_t>(shard.begin(), shard.begin() + long(s.shard * 4)));
            write_core_region(session_, core, b.offset + s.shard * shape_.cores * 4, tail);
        }
    }
}

ClusterStep ClusterTraining::step() {
    const bool functional = session_.functional();
    const uint32_t simulated = uint32_t(runs_.size());
    // Each node up to the inter-node phase: its micro-steps and reduce-scatter.
    std::vector<double> arrived_s(simulated);
    std::vector<Shards> shards(simulated);
    for (uint32_t i = 0; i < simulated; ++i) {
        activate(i);
        runs_[i]->begin_step();
        arrived_s[i] = runs_[i]->begun_step_s();
        if (functional) shards[i] = read_shards();
    }
    // The inter-node all-reduce, a bucket after another. Every node of the process arrives when its
    // first did: they run the same instructions and timing reads no data; run one after another on
    // one simulated host, the later ones' runtime calls would differ only by where the host's
    // polling happens to fall (about a microsecond), which a node in a process of its own does not see.
    std::vector<NodeArrival> local(nodes_.local_node_count());
    const uint64_t arrived_ps = sim::cluster::seconds_to_ps(arrived_s.front());
    for (uint32_t i = 0; i < local.size(); ++i) {
        local[i].node = nodes_.first_local_node() + i;
        local[i].time_ps = arrived_ps;
    }
    for (size_t k = 0; k < buckets_.size(); ++k) {
        const kernels::train::BucketShards s = kernels::train::bucket_shards(buckets_[k].elements, shape_.cores);
        sim::cluster::CollectivePhase phase;
        phase.inter_node = true;
        phase.kind = sim::cluster::CollectiveKind::AllReduce;
        phase.elements = s.shard + s.tail;   // rank 0's, the largest
        for (uint32_t i = 0; i < simulated && functional; ++i) local[i].rank_data = std::move(shards[i][k]);
        local = run_inter_node_phase(nodes_, session_.spec(), phase, shape_.cores, isa::DType::Fp32, local);
        for (uint32_t i = 0; i < simulated && functional; ++i) shards[i][k] = std::move(local[i].rank_data);
    }
    // Each node from the phase's end: the all-gather and the optimizer.
    std::vector<TrainingStepResult> results(simulated);
    const double inter_node_s = double(local.front().time_ps - arrived_ps) * 1e-12;
    for (uint32_t i = 0; i < simulated; ++i) {
        activate(i);
        if (functional) write_shards(shards[i]);
        results[i] = runs_[i]->end_step(inter_node_s);
    }
    std::vector<double> losses;
    for (uint32_t i = 0; i < local.size(); ++i) losses.push_back(results[std::min(i, simulated - 1)].loss);
    double loss = 0;
    for (double node_loss : values_of_every_node(nodes_, losses)) loss += node_loss / shape_.nodes;
    ClusterStep step;
    step.result = std::move(results.front());
    step.result.loss = loss;
    step.inter_node_s = inter_node_s;
    return step;
}

}  // namespace nsim::library
