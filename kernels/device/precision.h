// The data types a BERT program computes in: what the tensor engine multiplies (weights,
// activations fed to matmuls, attention probabilities) and what the rest of the model keeps
// (the residual stream, layernorm inputs and outputs). Accumulation (PSUM) and the engines'
// arithmetic are fp32 whatever is stored.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "isa/types.h"

namespace nsim::kernels::device {

// The accumulation type: PSUM, statistics, gradients' master copies.
constexpr isa::DType kFp32 = isa::DType::Fp32;

enum class Precision { Fp32, Bf16, Fp16, Mixed, MixedBf16 };

struct DtypePlan {
    isa::DType matmul;      // matmul operands: weights, Q/K/V, probabilities, FFN activations
    isa::DType activation;  // residual stream, layernorm, embeddings
};

// fp32: both fp32; bf16 / fp16: both that type; mixed: the seed's fp16 matmuls and attention, fp32 elsewhere;
// mixed-bf16: the same with bf16 matmuls, what torch_neuronx's `--auto-cast matmult` compiles (the AWS
// benchmark's setting, calibration.md section 1).
DtypePlan dtypes_for(Precision precision);
std::string_view name_of(Precision precision);
std::optional<Precision> precision_from_name(std::string_view name);

}  // namespace nsim::kernels::device
