// Reads a .safetensors file: an 8-byte little-endian header length N, N bytes of JSON
// ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}), then the raw
// little-endian tensor bytes, offsets relative to the end of the header. The header is checked whole
// when the file is opened; tensor bytes are read on demand, so a large checkpoint is not held twice.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bert/safetensors_dtype.h"
#include "bert/tensor.h"

namespace nsim::kernels {

struct SafetensorsTensorInfo {
    std::string name;
    SafetensorsDtype dtype = SafetensorsDtype::F32;
    Shape shape;
    uint64_t data_begin = 0;  // relative to the start of the data section
    uint64_t data_end = 0;
};

class SafetensorsReader {
public:
    // Throws InputError naming the file for anything malformed.
    explicit SafetensorsReader(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return path_; }
    // In header order.
    const std::vector<SafetensorsTensorInfo>& tensors() const { return tensors_; }
    const SafetensorsTensorInfo* find(std::string_view name) const;
    const std::map<std::string, std::string>& metadata() const { return metadata_; }

    std::vector<uint8_t> read_bytes(const SafetensorsTensorInfo& tensor) const;
    // F32/F16/BF16/F64 tensors as fp32; InputError for other dtypes or an unknown name.
    Tensor read_float(std::string_view name) const;
    Tensor read_float(const SafetensorsTensorInfo& tensor) const;

private:
    std::filesystem::path path_;
    mutable std::ifstream file_;
    uint64_t data_start_ = 0;
    std::vector<SafetensorsTensorInfo> tensors_;
    std::map<std::string, std::string> metadata_;
};

}  // namespace nsim::kernels
