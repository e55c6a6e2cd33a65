#include "bert/safetensors_writer.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bert/half_float.h"
#include "bert/little_endian.h"
#include "common/input_error.h"

namespace nsim::kernels {

SafetensorsEntry make_safetensors_entry(std::string name, const Tensor& tensor, SafetensorsDtype dtype) {
    SafetensorsEntry entry{std::move(name), dtype, tensor.shape, {}};
    const size_t size = safetensors_dtype_size(dtype);
    entry.bytes.resize(tensor.values.size() * size);
    uint8_t* p = entry.bytes.data();
    for (size_t i = 0; i < tensor.values.size(); ++i) {
        const float value = tensor.values[i];
        switch (dtype) {
        case SafetensorsDtype::F32:
            store_le_f32(p + 4 * i, value);
            break;
        case SafetensorsDtype::F16:
            store_le(p + 2 * i, float_to_f16_bits(value), 2);
            break;
        case SafetensorsDtype::BF16:
            store_le(p + 2 * i, float_to_bf16_bits(value), 2);
            break;
        default:
            throw std::invalid_argument(fmt::format("make_safetensors_entry: cannot store fp32 values as {}",
                                                    safetensors_dtype_name(dtype)));
        }
    }
    return entry;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<SafetensorsEntry>& entries,
                       const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (const auto& entry : entries) {
        const uint64_t expected = element_count(entry.shape) * safetensors_dtype_size(entry.dtype);
        if (entry.bytes.size() != expected)
            throw InputError(fmt::format("{}: tensor '{}' has {} bytes but {} {} needs {}", path.string(), entry.name,
                                         entry.bytes.size(), shape_to_string(entry.shape),
                                         safetensors_dtype_name(entry.dtype), expected));
        header[entry.name] = {{"dtype", std::string(safetensors_dtype_name(entry.dtype))},
                              {"shape", entry.shape},
                              {"data_offsets", {offset, offset + expected}}};
        offset += expected;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("{}: cannot create the file", path.string()));
    uint8_t length[8];
    store_le(length, text.size(), 8);
    out.write(reinterpret_cast<const char*>(length), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto& entry : entries)
        out.write(reinterpret_cast<const char*>(entry.bytes.data()), static_cast<std::streamsize>(entry.bytes.size()));
    if (!out) throw InputError(fmt::format("{}: write failed", path.string()));
}

}  // namespace nsim::kernels
