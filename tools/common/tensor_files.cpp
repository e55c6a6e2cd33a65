#include "tensor_files.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/semantics/dtype_conversion.h"
#include "isa/bounded_file.h"

namespace nsim::tensor_files {
namespace {

namespace dtype = sim::core::dtype;

bool is_narrow_float(isa::DType type) { return isa::is_float(type) && type != isa::DType::Fp32; }

// The numpy type a tensor of `type` is written as.
std::string output_descr(isa::DType type) {
    switch (type) {
        case isa::DType::Int32: return "<i4";
        case isa::DType::Int8: return "|i1";
        case isa::DType::Uint8: return "|u1";
        default: return "<f4";   // fp32, and every narrower float widened
    }
}

// The numpy types a tensor of `type` accepts, in the words of a message.
std::string accepted_types(isa::DType type) {
    if (type == isa::DType::Fp16) return "float16 or float32";
    return npy::type_name(output_descr(type));
}

std::string tensor_text(const isa::TensorInfo& t) {
    return fmt::format("{} {}", isa::name_of(t.dtype), npy::shape_text(t.shape));
}

}  // namespace

std::pair<std::string, std::filesystem::path> parse_binding(const std::string& text) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw TensorFileError("--input '" + text + "' is not NAME=FILE.npy");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

// The .npy file given for `tensor`, read only as far as any tensor's file can go: 16 GiB (what a
// whole program may be, isa's container limit) after a header numpy itself keeps under 10,000 bytes
// (np.load's max_header_size) and the 12-byte prefix of a version-2 file. Not the tensor's own size:
// a wrongly shaped or typed array is read, so that its message says what is wrong with it.
npy::Array read_tensor_file(const isa::TensorInfo& tensor, const std::filesystem::path& path) {
    constexpr uint64_t max_bytes = 12 + 10000 + (uint64_t(16) << 30);
    // The magic is checked on the first bytes, so /dev/zero or a huge file is not read up to the limit.
    const isa::HeadCheck magic{npy::kMagicBytes, [](const uint8_t* head, size_t size) {
        if (size == npy::kMagicBytes) npy::check_magic(head, size);   // a shorter file: parse says so
    }};
    try {
        const std::vector<uint8_t> bytes = isa::read_bounded_file(path, max_bytes, ".npy file for this tensor", magic);
        return npy::parse(bytes.data(), bytes.size());
    } catch (const isa::FileError& e) {
        throw TensorFileError(fmt::format("input '{}': {}", tensor.name, e.what()));
    } catch (const npy::NpyError& e) {
        throw TensorFileError(fmt::format("input '{}': {}: {}", tensor.name, path.string(), e.what()));
    }
}

std::vector<uint8_t> tensor_bytes(const isa::TensorInfo& tensor, const npy::Array& array, const std::string& source) {
    const std::string head = fmt::format("input '{}' ({}): {}", tensor.name, tensor_text(tensor), source);
    if (array.shape != tensor.shape)
        throw TensorFileError(fmt::format("{} has shape {}, the tensor is {}", head, npy::shape_text(array.shape),
                                          npy::shape_text(tensor.shape)),
                              TensorFileError::Problem::Shape);
    const bool exact = array.descr == output_descr(tensor.dtype) && !is_narrow_float(tensor.dtype);
    const bool widened = is_narrow_float(tensor.dtype) && array.descr == "<f4";
    const bool half = tensor.dtype == isa::DType::Fp16 && array.descr == "<f2";
    if (exact || half) return array.data;
    if (!widened)
        throw TensorFileError(fmt::format("{} holds {}, the tensor takes {}", head, npy::type_name(array.descr),
                                          accepted_types(tensor.dtype)),
                              TensorFileError::Problem::Type);
    const size_t count = array.element_count();
    std::vector<float> values(count);
    std::memcpy(values.data(), array.data.data(), count * sizeof(float));
    std::vector<uint8_t> bytes(tensor.size_bytes());
    dtype::encode(tensor.dtype, values.data(), bytes.data(), count);
    return bytes;
}

npy::Array tensor_array(const isa::TensorInfo& tensor, const std::vector<uint8_t>& bytes) {
    npy::Array array{output_descr(tensor.dtype), tensor.shape, {}};
    if (!is_narrow_float(tensor.dtype)) {
        array.data = bytes;
        return array;
    }
    const size_t count = array.element_count();
    std::vector<float> values(count);
    dtype::decode(tensor.dtype, bytes.data(), values.data(), count);
    array.data.resize(count * sizeof(float));
    std::memcpy(array.data.data(), values.data(), array.data.size());
    return array;
}

namespace {

// How the user gave a tensor's values, for messages: `given` names one ("--input B"), `hint` says how
// to give a missing one ("give --input B=FILE.npy").
struct Wording {
    std::function<std::string(const std::string& name)> given, hint;
};

// Sets each of `names` from `array_of` (the tensor's array and where it came from), then reports any
// input or weight left without data.
void set_tensor_values(isa::Container& program, const std::vector<std::string>& names,
          const std::function<std::pair<npy::Array, std::string>(const isa::TensorInfo& tensor)>& array_of, const Wording& words) {
    using Problem = TensorFileError::Problem;
    std::vector<std::string> settable;
    for (const isa::TensorInfo& t : program.tensors)
        if (t.role == isa::TensorRole::Input || t.role == isa::TensorRole::Weight) settable.push_back(t.name);
    for (const std::string& name : names) {
        auto it = std::find_if(program.tensors.begin(), program.tensors.end(), [&](const isa::TensorInfo& t) { return t.name == name; });
        if (it == program.tensors.end())
            throw TensorFileError(fmt::format("{}: the program has no tensor '{}' (its inputs and weights: {})", words.given(name), name,
                                              settable.empty() ? "none" : fmt::format("{}", fmt::join(settable, ", "))),
                                  Problem::UnknownTensor);
        if (it->role != isa::TensorRole::Input && it->role != isa::TensorRole::Weight)
            throw TensorFileError(fmt::format("{}: '{}' is an {} tensor of the program, not an input or a weight", words.given(name),
                                              name, isa::name_of(it->role)),
                                  Problem::UnknownTensor);
        const auto [array, source] = array_of(*it);
        it->data = tensor_bytes(*it, array, source);
    }
    for (const isa::TensorInfo& t : program.tensors)
        if ((t.role == isa::TensorRole::Input || t.role == isa::TensorRole::Weight) && t.data.empty())
            throw TensorFileError(fmt::format("missing {} '{}' ({}): {}", isa::name_of(t.role), t.name, tensor_text(t), words.hint(t.name)),
                                  Problem::Missing);
}

}  // namespace

void bind_inputs(isa::Container& program, const std::map<std::string, std::filesystem::path>& files) {
    std::vector<std::string> names;
    for (const auto& [name, path] : files) names.push_back(name);
    const Wording words{[](const std::string& name) { return "--input " + name; },
                        [](const std::string& name) { return "give --input " + name + "=FILE.npy"; }};
    set_tensor_values(program, names, [&](const isa::TensorInfo& tensor) -> std::pair<npy::Array, std::string> {
        const std::filesystem::path& path = files.at(tensor.name);
        return {read_tensor_file(tensor, path), path.string()};
    }, words);
}

void bind_arrays(isa::Container& program, const std::map<std::string, npy::Array>& arrays) {
    std::vector<std::string> names;
    for (const auto& [name, array] : arrays) names.push_back(name);
    const Wording words{[](const std::string& name) { return "inputs['" + name + "']"; },
                        [](const std::string& name) { return "give inputs['" + name + "'] (a numpy array)"; }};
    set_tensor_values(program, names, [&](const isa::TensorInfo& tensor) -> std::pair<npy::Array, std::string> {
        return {arrays.at(tensor.name), "the array"};
    }, words);
}

std::vector<std::filesystem::path> write_outputs(const isa::Container& program, const std::filesystem::path& dir,
                                                 const std::function<const std::vector<uint8_t>&(const std::string& name)>& bytes_of) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw TensorFileError("cannot make the output directory " + dir.string() + ": " + error.message());
    std::vector<std::filesystem::path> written;
    for (const isa::TensorInfo& t : program.tensors) {
        if (t.role != isa::TensorRole::Output) continue;
        // A tensor name is a file name here; a name with a path separator would escape DIR.
        if (t.name.find('/') != std::string::npos || t.name == "." || t.name == "..")
            throw TensorFileError("output '" + t.name + "' cannot be a file name in " + dir.string());
        const std::filesystem::path path = dir / (t.name + ".npy");
        try {
            npy::write_file(path, tensor_array(t, bytes_of(t.name)));
        } catch (const npy::NpyError& e) {
            throw TensorFileError(fmt::format("output '{}': {}", t.name, e.what()));
        }
        written.push_back(path);
    }
    return written;
}

}  // namespace nsim::tensor_files
