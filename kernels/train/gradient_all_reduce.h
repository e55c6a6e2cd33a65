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

}  // namespace nsim::kernels::train
