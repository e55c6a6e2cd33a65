// The "all-reduce" graph of a data-parallel training step (training.md A2.2, A1.4): between the last
// micro-step and the optimizer, every core's gradient sums are all-reduced over the data-parallel
// cores with the ISA's all_reduce, as xm.reduce_gradients does it - the gradient list reversed (last
// layer first) and packed into buckets of at most the bucket size (Neuron's default
// ALLREDUCE_GRADIENTS_BUCKET_SIZE_MB=50), one collective per bucket, one bucket after another. A
// bucket is a run of consecutive sums in device memory (GradientSums adds them one after another),
// named by an alias tensor over them, reduced in place. The result on every core is the sum over the
// cores; the optimizer divides by the cores with the micro-steps (reduce_gradients' scale
// 1 / world_size, folded into the average optimizer_step takes anyway, so the graph moves no byte
// beyond the collectives). The sums are fp32 here (the script's are in the parameters' dtype).
#pragma once

#include <string>
#include <vector>

#include "builder/program_builder.h"

namespace nsim::kernels::train {

inline constexpr const char* kAllReduceGraph = "all-reduce";
// On several nodes the all-reduce is hierarchical (training.md A1.3): these two graphs are its
// intra-node phases, the runtime runs the inter-node one between them (gradient_reduce_scatter_all_gather).
inline constexpr const char* kReduceScatterGraph = "reduce-scatter";
inline constexpr const char* kAllGatherGraph = "all-gather";
// ALLREDUCE_GRADIENTS_BUCKET_SIZE_MB=50 (torch-xla's neuron plugin), times 1024 x 1024 as torch-xla reads it.
inline constexpr uint64_t kDefaultGradientBucketBytes = uint64_t(50) << 20;

// Gradients [first, end) of the sums' list, reduced as one: `bytes` of device memory from the
// first's offset (the alignment gaps between them included).
struct GradientBucket {
    uint32_t first = 0, end = 0;
    uint64_t bytes = 0;
};

// Whether a tensor is a bucket's alias (its bytes are the gradient sums', counted there).
bool is_gradient_bucket(const std::string& tensor_name);

// torch-xla's packing: over the reversed list, a gradient that would take the bucket's total past
// `cap` closes the bucket (unless it is empty) and starts the next; so a gradient larger than the
// cap goes alone. In the order they are reduced. std::logic_error if a bucket's sums are not
// consecutive in device memory.
std::vector<GradientBucket> gradient_buckets(const builder::ProgramBuilder& program, const std::vector<uint32_t>& gradients,
                                             uint64_t cap);

// Begins graph kAllReduceGraph on program core 0 (build_training_program gives every core its
// streams) and all-reduces the buckets of `gradients` (fp32 sums) over program cores 0 .. cores - 1,
// then ends the all-reduce phase (phase_marks.h). Returns the buckets.
std::vector<GradientBucket> gradient_all_reduce(builder::ProgramBuilder& program, const std::vector<uint32_t>& gradients,
                                                uint32_t cores, uint64_t bucket_bytes,
                                                std::vector<std::string>& phase_names);

// How a bucket of `elements` fp32 sums splits over `cores` ranks in the hierarchical all-reduce: after
// the reduce-scatter, rank i holds elements [i x shard, (i + 1) x shard) of the bucket's sum over the
// node's cores at the start of its own copy of the bucket; the `tail` after cores x shard (fewer
// elements than ranks, so no equal share) is all-reduced whole inside the node instead, and crosses the
// nodes with rank 0's shard.
struct BucketShards {
    uint64_t shard = 0, tail = 0;
};
BucketShards bucket_shards(uint64_t elements, uint32_t cores);

// The all-reduce of `gradients` over `cores` cores on each of several nodes, split around the
// inter-node phase the runtime runs: graph kReduceScatterGraph reduce-scatters every bucket over the
// cores (bucket_shards) and all-reduces its tail, then ends the all-reduce phase; the runtime
// all-reduces each rank's shard across the nodes (tools/library: multi-node training) and writes it
// back; graph kAllGatherGraph all-gathers the shards into the whole bucket on every core and ends the
// all-reduce phase again. The buckets and their alias tensors are gradient_all_reduce's, made on one
// core too (no graph then: the runtime all-reduces whole buckets across the nodes). Returns the buckets.
std::vector<GradientBucket> gradient_reduce_scatter_all_gather(builder::ProgramBuilder& program,
                                                               const std::vector<uint32_t>& gradients, uint32_t cores,
                                                               uint64_t bucket_bytes, std::vector<std::string>& phase_names);

}  // namespace nsim::kernels::train
