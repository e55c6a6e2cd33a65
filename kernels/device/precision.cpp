#include "device/precision.h"

namespace nsim::kernels::device {

DtypePlan dtypes_for(Precision precision) {
    switch (precision) {
        case Precision::Fp32: return {isa::DType::Fp32, isa::DType::Fp32};
        case Precision::Bf16: return {isa::DType::Bf16, isa::DType::Bf16};
        case Precision::Fp16: return {isa::DType::Fp16, isa::DType::Fp16};
        case Precision::Mixed: return {isa::DType::Fp16, isa::DType::Fp32};
        case Precision::MixedBf16: return {isa::DType::Bf16, isa::DType::Fp32};
    }
    return {isa::DType::Fp32, isa::DType::Fp32};
}

std::string_view name_of(Precision precision) {
    switch (precision) {
        case Precision::Fp32: return "fp32";
        case Precision::Bf16: return "bf16";
        case Precision::Fp16: return "fp16";
        case Precision::Mixed: return "mixed";
        case Precision::MixedBf16: return "mixed-bf16";
    }
    return "";
}

std::optional<Precision> precision_from_name(std::string_view name) {
    for (Precision p : {Precision::Fp32, Precision::Bf16, Precision::Fp16, Precision::Mixed, Precision::MixedBf16})
        if (name == name_of(p)) return p;
    return std::nullopt;
}

}  // namespace nsim::kernels::device
