// The optimizer half of a training step, after the micro-steps have summed their gradients into
// device memory (and, on several cores, after the all-reduce of those sums, gradient_all_reduce.h): as the BERT script does it (training.md A2.2),
//   average over the micro-steps (the script divides each micro-step's loss by their count),
//   clip the global gradient norm (torch clip_grad_norm_: coefficient max_norm / (norm + 1e-6),
//     clamped to 1; skipped when max_grad_norm is 0),
//   AdamW on every parameter (adamw.h), and write back what the next step reads: the parameter,
//     m and v, and a linear weight's W^T (tensor-engine transposes of the updated W).
// One parameter at a time (a large one in chunks of row tiles; a vector wider than every matrix row
// as a matrix of the same elements) through two on-chip rooms in turn, so
// that a chunk's loads run while the chunk before is updated.
#pragma once

#include "train/adamw.h"
#include "train/dram_tiles.h"
#include "train/training_parameters.h"

namespace nsim::kernels::train {

struct OptimizerStep {
    std::vector<ParameterTensors> parameters;
    std::vector<uint32_t> gradients;  // fp32 [rows, columns] sums over the micro-steps, one per parameter
    isa::DType states = isa::DType::Fp32;  // m and v
    uint32_t micro_steps = 1;  // micro-batches in the sums: micro-steps x data-parallel cores after an all-reduce
    float max_grad_norm = 0;
    AdamWConstants constants;
    builder::Buffer scalars;  // fp32 [partitions, kAdamWScalars] (adamw.h)
    uint64_t chunk_bytes = 48 * 1024;  // per partition: p, m, v, g and W^T of one chunk of rows (at least one tile)
    uint32_t grad_norm_output = isa::kNoTensor;  // fp32 [1, 1]: the averaged gradient's norm (when clipping)
    // Each tensor's loads and stores on its channel of these (null: all on the step's channel).
    const TensorChannels* channels = nullptr;
};

void optimizer_step(KernelContext& ctx, builder::DmaChannel& channel, const OptimizerStep& step);

}  // namespace nsim::kernels::train
