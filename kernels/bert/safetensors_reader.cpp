#include "bert/safetensors_reader.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bert/half_float.h"
#include "bert/json_input.h"
#include "bert/little_endian.h"
#include "common/input_error.h"

namespace nsim::kernels {
namespace {

using nlohmann::json;

// The reference implementation refuses headers above 100 MB; a larger one is a corrupt length field.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

uint64_t to_u64(const json& value) {
    if (value.is_number_unsigned()) return value.get<uint64_t>();
    if (value.is_number_integer() && value.get<int64_t>() >= 0) return static_cast<uint64_t>(value.get<int64_t>());
    throw std::invalid_argument("not a non-negative integer");
}

class HeaderParser {
public:
    HeaderParser(std::string source, uint64_t data_size) : source_(std::move(source)), data_size_(data_size) {}

    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(fmt::format("{}: not a valid safetensors file: {}", source_, problem));
    }

    SafetensorsTensorInfo parse_tensor(const std::string& name, const json& entry) const {
        if (!entry.is_object()) fail(fmt::format("tensor '{}' is not a JSON object", name));
        SafetensorsTensorInfo info;
        info.name = name;
        auto dtype = entry.find("dtype");
        if (dtype == entry.end() || !dtype->is_string()) fail(fmt::format("tensor '{}' has no \"dtype\" string", name));
        auto parsed = safetensors_dtype_from_name(dtype->get<std::string>());
        if (!parsed) fail(fmt::format("tensor '{}' has unknown dtype \"{}\"", name, dtype->get<std::string>()));
        info.dtype = *parsed;

        auto shape = entry.find("shape");
        if (shape == entry.end() || !shape->is_array()) fail(fmt::format("tensor '{}' has no \"shape\" array", name));
        uint64_t elements = 1;
        for (const json& dim : *shape) {
            uint64_t d = 0;
            try {
                d = to_u64(dim);
            } catch (const std::exception&) {
                fail(fmt::format("tensor '{}' has a shape entry {} that is not a non-negative integer", name, dim.dump()));
            }
            if (d != 0 && elements > std::numeric_limits<uint64_t>::max() / d)
                fail(fmt::format("tensor '{}' has an impossibly large shape", name));
            elements *= d;
            info.shape.push_back(static_cast<size_t>(d));
        }

        auto offsets = entry.find("data_offsets");
        if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
            fail(fmt::format("tensor '{}' has no \"data_offsets\" [begin, end]", name));
        try {
            info.data_begin = to_u64((*offsets)[0]);
            info.data_end = to_u64((*offsets)[1]);
        } catch (const std::exception&) {
            fail(fmt::format("tensor '{}' has data_offsets that are not non-negative integers", name));
        }
        if (info.data_begin > info.data_end || info.data_end > data_size_)
            fail(fmt::format("tensor '{}' has data_offsets [{}, {}] outside the {} data bytes", name, info.data_begin,
                             info.data_end, data_size_));
        const uint64_t element_size = safetensors_dtype_size(info.dtype);
        if (elements > std::numeric_limits<uint64_t>::max() / element_size ||
            info.data_end - info.data_begin != elements * element_size)
            fail(fmt::format("tensor '{}' has {} data bytes but {} {} of {} needs {}", name,
                             info.data_end - info.data_begin, shape_to_string(info.shape),
                             safetensors_dtype_name(info.dtype), element_size, elements * element_size));
        return info;
    }

    std::map<std::string, std::string> parse_metadata(const json& entry) const {
        if (!entry.is_object()) fail("\"__metadata__\" is not an object");
        std::map<std::string, std::string> metadata;
        for (const auto& [key, value] : entry.items()) {
            if (!value.is_string()) fail(fmt::format("\"__metadata__\" value of '{}' is not a string", key));
            metadata[key] = value.get<std::string>();
        }
        return metadata;
    }

    void check_no_overlap(std::vector<SafetensorsTensorInfo> tensors) const {
        std::sort(tensors.begin(), tensors.end(),
                  [](const auto& a, const auto& b) { return a.data_begin < b.data_begin; });
        for (size_t i = 1; i < tensors.size(); ++i)
            if (tensors[i].data_begin < tensors[i - 1].data_end)
                fail(fmt::format("tensors '{}' and '{}' overlap", tensors[i - 1].name, tensors[i].name));
    }

private:
    std::string source_;
    uint64_t data_size_;
};

}  // namespace

SafetensorsReader::SafetensorsReader(const std::filesystem::path& path) : path_(path) {
    const std::string source = path.string();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(fmt::format("{}: is a directory, not a safetensors file", source));
    if (!std::filesystem::is_regular_file(path, ec))
        throw InputError(fmt::format("{}: {}", source, std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    file_.open(path, std::ios::binary);
    if (!file_ || ec) throw InputError(fmt::format("{}: cannot open", source));

    HeaderParser parser(source, 0);
    uint8_t length_bytes[8];
    if (file_size < 8 || !file_.read(reinterpret_cast<char*>(length_bytes), 8))
        parser.fail(fmt::format("{} bytes is shorter than the 8-byte header length", file_size));
    const uint64_t header_size = load_le(length_bytes, 8);
    if (header_size > kMaxHeaderBytes || header_size > file_size - 8)
        parser.fail(fmt::format("header length {} does not fit in the file's {} bytes", header_size, file_size));

    std::string header(header_size, '\0');
    if (!file_.read(header.data(), static_cast<std::streamsize>(header_size)))
        parser.fail("cannot read the header");
    data_start_ = 8 + header_size;

    const json object = parse_json_or_input_error(header, source, "not a valid safetensors file: header is not JSON");
    if (!object.is_object()) parser.fail("header is not a JSON object");

    HeaderParser checked(source, file_size - data_start_);
    for (const auto& [name, entry] : object.items()) {
        if (name == "__metadata__")
            metadata_ = checked.parse_metadata(entry);
        else
            tensors_.push_back(checked.parse_tensor(name, entry));
    }
    checked.check_no_overlap(tensors_);
}

const SafetensorsTensorInfo* SafetensorsReader::find(std::string_view name) const {
    for (const auto& tensor : tensors_)
        if (tensor.name == name) return &tensor;
    return nullptr;
}

std::vector<uint8_t> SafetensorsReader::read_bytes(const SafetensorsTensorInfo& tensor) const {
    std::vector<uint8_t> bytes(tensor.data_end - tensor.data_begin);
    file_.clear();
    file_.seekg(static_cast<std::streamoff>(data_start_ + tensor.data_begin));
    if (!file_.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
        throw InputError(fmt::format("{}: cannot read the data of tensor '{}'", path_.string(), tensor.name));
    return bytes;
}

Tensor SafetensorsReader::read_float(std::string_view name) const {
    const SafetensorsTensorInfo* tensor = find(name);
    if (!tensor) throw InputError(fmt::format("{}: missing tensor '{}'", path_.string(), name));
    return read_float(*tensor);
}

Tensor SafetensorsReader::read_float(const SafetensorsTensorInfo& tensor) const {
    if (!is_float_weight_dtype(tensor.dtype))
        throw InputError(fmt::format("{}: tensor '{}' has dtype {}, not a floating-point weight type", path_.string(),
                                     tensor.name, safetensors_dtype_name(tensor.dtype)));
    const std::vector<uint8_t> bytes = read_bytes(tensor);
    Tensor out(tensor.shape);
    const uint8_t* p = bytes.data();
    for (size_t i = 0; i < out.values.size(); ++i) {
        switch (tensor.dtype) {
        case SafetensorsDtype::F32:
            out.values[i] = load_le_f32(p + 4 * i);
            break;
        case SafetensorsDtype::F16:
            out.values[i] = f16_bits_to_float(static_cast<uint16_t>(load_le(p + 2 * i, 2)));
            break;
        case SafetensorsDtype::BF16:
            out.values[i] = bf16_bits_to_float(static_cast<uint16_t>(load_le(p + 2 * i, 2)));
            break;
        default:  // F64
            out.values[i] = static_cast<float>(load_le_f64(p + 8 * i));
        }
    }
    return out;
}

}  // namespace nsim::kernels
