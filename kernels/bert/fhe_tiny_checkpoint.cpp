#include "bert/fhe_tiny_checkpoint.h"

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bert/json_input.h"
#include "bert/little_endian.h"
#include "common/input_error.h"
#include "common/input_file.h"

namespace nsim::kernels {
namespace {

using nlohmann::json;

// An index lists a few hundred tensors, a few tens of KB.
constexpr uint64_t kMaxIndexBytes = uint64_t(16) << 20;

// The index names every byte the loader reads, so a data file is never read past what it needs.
std::vector<uint8_t> read_file(const std::filesystem::path& path, uint64_t max_bytes) {
    try {
        return isa::read_bounded_file(path, max_bytes, "weights file");
    } catch (const isa::FileError& e) {
        throw InputError(e.what());
    }
}

std::vector<float> decode_le_f32(const uint8_t* bytes, size_t count) {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = load_le_f32(bytes + 4 * i);
    return values;
}

struct IndexEntry {
    Shape shape;
    uint64_t offset = 0;
    uint64_t nbytes = 0;
};

std::map<std::string, IndexEntry> read_index(const std::filesystem::path& path) {
    const json index =
        parse_json_or_input_error(read_input_text(path, kMaxIndexBytes, "weights index"), path.string(), "not valid JSON");
    if (!index.is_object() || !index.contains("tensors") || !index["tensors"].is_array())
        throw InputError(fmt::format("{}: no \"tensors\" array", path.string()));
    std::map<std::string, IndexEntry> entries;
    for (const json& tensor : index["tensors"]) {
        try {
            IndexEntry entry{tensor.at("shape").get<Shape>(), tensor.at("offset").get<uint64_t>(),
                             tensor.at("nbytes").get<uint64_t>()};
            entries[tensor.at("name").get<std::string>()] = entry;
        } catch (const json::exception&) {
            throw InputError(fmt::format("{}: a tensor entry lacks name, shape, offset or nbytes: {}", path.string(),
                                         tensor.dump().substr(0, 60)));
        }
    }
    return entries;
}

}  // namespace

BertWeights load_fhe_tiny_checkpoint(const std::filesystem::path& dir) {
    const BertConfig config = read_bert_config(dir / "config.json");
    const std::filesystem::path index_path = dir / "weights.json";
    const std::filesystem::path data_path = dir / "weights.bin";
    const auto index = read_index(index_path);
    uint64_t data_end = 0;
    for (const auto& [name, entry] : index) data_end = std::max(data_end, entry.offset + std::min(entry.nbytes, ~entry.offset));
    const std::vector<uint8_t> data = read_file(data_path, data_end);

    BertWeights weights = bert_weights_to_load(config, false, index.size(), (dir / "config.json").string());
    for (BertTensorSlot& slot : bert_tensor_slots(weights, false)) {
        auto it = index.find(slot.name);
        if (it == index.end())
            throw InputError(fmt::format("{}: missing tensor '{}' (expected shape {})", index_path.string(), slot.name,
                                         shape_to_string(slot.shape)));
        const IndexEntry& entry = it->second;
        if (entry.shape != slot.shape)
            throw InputError(fmt::format("{}: tensor '{}' has shape {} but {} implies {}", index_path.string(),
                                         slot.name, shape_to_string(entry.shape),
                                         (dir / "config.json").string(), shape_to_string(slot.shape)));
        if (entry.nbytes != element_count(entry.shape) * 4 || entry.offset > data.size() ||
            entry.nbytes > data.size() - entry.offset)
            throw InputError(fmt::format("{}: tensor '{}' bytes [{}, +{}) do not fit {} ({} bytes) as fp32 {}",
                                         index_path.string(), slot.name, entry.offset, entry.nbytes,
                                         data_path.string(), data.size(), shape_to_string(entry.shape)));
        *slot.tensor = Tensor(entry.shape, decode_le_f32(data.data() + entry.offset, element_count(entry.shape)));
    }
    return weights;
}

Tensor read_raw_f32(const std::filesystem::path& path, const Shape& shape) {
    const size_t count = element_count(shape);
    const std::vector<uint8_t> data = read_file(path, uint64_t(count) * 4);
    if (data.size() != count * 4)
        throw InputError(fmt::format("{}: {} bytes, but fp32 {} needs {}", path.string(), data.size(),
                                     shape_to_string(shape), count * 4));
    return Tensor(shape, decode_le_f32(data.data(), count));
}

}  // namespace nsim::kernels
