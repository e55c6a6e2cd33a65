#include "bert/safetensors_dtype.h"

#include <array>

namespace nsim::kernels {
namespace {

struct DtypeInfo {
    SafetensorsDtype dtype;
    std::string_view name;
    size_t size;
};

constexpr std::array<DtypeInfo, 15> kDtypes{{
    {SafetensorsDtype::BOOL, "BOOL", 1},       {SafetensorsDtype::U8, "U8", 1},
    {SafetensorsDtype::I8, "I8", 1},           {SafetensorsDtype::I16, "I16", 2},
    {SafetensorsDtype::U16, "U16", 2},         {SafetensorsDtype::F16, "F16", 2},
    {SafetensorsDtype::BF16, "BF16", 2},       {SafetensorsDtype::I32, "I32", 4},
    {SafetensorsDtype::U32, "U32", 4},         {SafetensorsDtype::F32, "F32", 4},
    {SafetensorsDtype::F64, "F64", 8},         {SafetensorsDtype::I64, "I64", 8},
    {SafetensorsDtype::U64, "U64", 8},         {SafetensorsDtype::F8_E4M3, "F8_E4M3", 1},
    {SafetensorsDtype::F8_E5M2, "F8_E5M2", 1},
}};

const DtypeInfo& info(SafetensorsDtype dtype) {
    for (const auto& entry : kDtypes)
        if (entry.dtype == dtype) return entry;
    return kDtypes.front();
}

}  // namespace

std::string_view safetensors_dtype_name(SafetensorsDtype dtype) { return info(dtype).name; }

std::optional<SafetensorsDtype> safetensors_dtype_from_name(std::string_view name) {
    for (const auto& entry : kDtypes)
        if (entry.name == name) return entry.dtype;
    return std::nullopt;
}

size_t safetensors_dtype_size(SafetensorsDtype dtype) { return info(dtype).size; }

bool is_float_weight_dtype(SafetensorsDtype dtype) {
    return dtype == SafetensorsDtype::F32 || dtype == SafetensorsDtype::F16 || dtype == SafetensorsDtype::BF16 ||
           dtype == SafetensorsDtype::F64;
}

}  // namespace nsim::kernels
