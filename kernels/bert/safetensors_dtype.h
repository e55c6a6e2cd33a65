// The element types a safetensors header may name, with their sizes.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace nsim::kernels {

enum class SafetensorsDtype { BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64, F8_E4M3, F8_E5M2 };

std::string_view safetensors_dtype_name(SafetensorsDtype dtype);
std::optional<SafetensorsDtype> safetensors_dtype_from_name(std::string_view name);
size_t safetensors_dtype_size(SafetensorsDtype dtype);
// The dtypes whose values can be read as fp32 weights.
bool is_float_weight_dtype(SafetensorsDtype dtype);

}  // namespace nsim::kernels
