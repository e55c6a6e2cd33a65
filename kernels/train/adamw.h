// AdamW on the device (training.md A2.3): with fp32 optimizer states ("AdamW_FP32OptimParams": the
// grad upcast to fp32, m and v in fp32, the update written to the parameter in its own dtype - bf16
// with stochastic rounding when the program turns it on), or with m and v in the parameter's dtype
// (SDK 2.3's all-BF16 AdamW). Element-wise on the vector engine, any layout:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p = p decay - step_size m / (sqrt(v bias2) + eps)
// with the step-dependent scalars decay = 1 - lr wd, step_size = lr / (1 - b1^t), bias2 = 1 / (1 - b2^t)
// read from a small fp32 tensor the host writes before each step (so one program serves every step
// and any learning-rate schedule); b1, b2, eps are immediates of the program.
#pragma once

#include "train/tile_products.h"

namespace nsim::kernels::train {

struct AdamWConstants {
    float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};

// The step scalars' order in their tensor ([1, kAdamWScalars] fp32).
enum AdamWScalar : uint32_t { kDecay = 0, kStepSize = 1, kBias2 = 2, kAdamWScalars = 3 };
// decay, step_size, bias2 for step t (1-based).
std::vector<float> adamw_step_scalars(double lr, double weight_decay, double beta1, double beta2, uint32_t t);

// p, g (any dtype), m, v (fp32, or the parameter's dtype for the all-BF16 AdamW of SDK 2.3 - the
// engines compute in fp32 and round each write): the same shape and tiling. scalars: fp32 [partitions,
// kAdamWScalars], the step scalars broadcast over partitions (load_broadcast_row).
void adamw(KernelContext& ctx, TileSet& p, const TileSet& g, TileSet& m, TileSet& v, const builder::Buffer& scalars,
           const AdamWConstants& constants);
// The same with the caller's scratch (fp32 [partitions, >= 2 p.columns]), so a step over many
// parameters reuses one (on-chip memory is never freed).
void adamw(KernelContext& ctx, TileSet& p, const TileSet& g, TileSet& m, TileSet& v, const builder::Buffer& scalars,
           const AdamWConstants& constants, const builder::Buffer& scratch);

}  // namespace nsim::kernels::train
