// Writes a .safetensors file the way the reference implementation lays it out (header padded with
// spaces to a multiple of 8 bytes, tensors packed in the given order), so Python tools read it too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bert/safetensors_dtype.h"
#include "bert/tensor.h"

namespace nsim::kernels {

struct SafetensorsEntry {
    std::string name;
    SafetensorsDtype dtype = SafetensorsDtype::F32;
    Shape shape;
    std::vector<uint8_t> bytes;  // little-endian, element_count(shape) * dtype size
};

// fp32 values stored as F32, F16 or BF16 (rounded to nearest even).
SafetensorsEntry make_safetensors_entry(std::string name, const Tensor& tensor,
                                        SafetensorsDtype dtype = SafetensorsDtype::F32);

// Throws InputError when the file cannot be written or an entry's byte count does not match its shape.
void write_safetensors(const std::filesystem::path& path, const std::vector<SafetensorsEntry>& entries,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace nsim::kernels
