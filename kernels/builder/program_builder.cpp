#include "builder/program_builder.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <stdexcept>

#include "bert/half_float.h"

namespace nsim::kernels::builder {
namespace {
constexpr uint64_t kTensorAlignment = 64;
}

uint32_t generation_number(const config::NeuronCoreSpec& spec) {
    if (spec.version.size() < 2 || spec.version[0] != 'v')
        throw std::invalid_argument("core version '" + spec.version + "' is not vN");
    return uint32_t(std::stoul(spec.version.substr(1)));
}

ProgramBuilder::ProgramBuilder(const config::NeuronCoreSpec& spec, uint32_t cores) : spec_(spec) {
    if (cores == 0) throw std::invalid_argument("a program needs at least one core");
    program_.generation = generation_number(spec);
    program_.cores_needed = cores;
    make_cores();
}

void ProgramBuilder::make_cores() {
    const uint32_t cores = program_.cores_needed;
    cores_.clear();
    for (uint32_t c = 0; c < cores; ++c) cores_.push_back(std::make_unique<CoreBuilder>(spec_, c, program_));
    if (rounding_seed_)
        for (auto& core : cores_) core->set_stochastic_rounding(*rounding_seed_);
}

void ProgramBuilder::finish_cores() {
    for (auto& core : cores_) core->finish();
    if (program_.graphs.empty()) return;
    for (size_t i = graph_first_stream_; i < program_.streams.size(); ++i)
        program_.streams[i].graph = uint32_t(program_.graphs.size() - 1);
    graph_first_stream_ = program_.streams.size();
}

void ProgramBuilder::begin_graph(const std::string& name) {
    if (std::find(program_.graphs.begin(), program_.graphs.end(), name) != program_.graphs.end())
        throw std::logic_error("graph '" + name + "' is begun twice");
    finish_cores();
    if (program_.graphs.empty() && !program_.streams.empty())
        throw std::logic_error("graph '" + name + "': instructions were emitted before the first graph");
    program_.graphs.push_back(name);
    graph_first_stream_ = program_.streams.size();
    make_cores();
}

void ProgramBuilder::set_stochastic_rounding(uint32_t seed) {
    rounding_seed_ = seed;
    for (auto& core : cores_) core->set_stochastic_rounding(seed);
    set_metadata("stochastic_rounding", "seed=" + std::to_string(seed));
}

void ProgramBuilder::set_metadata(const std::string& key, const std::string& value) {
    for (auto& kv : program_.metadata)
        if (kv.first == key) {
            kv.second = value;
            return;
        }
    program_.metadata.emplace_back(key, value);
}

uint32_t ProgramBuilder::add_tensor(const std::string& name, isa::TensorRole role, isa::DType dtype,
                                    std::vector<uint64_t> shape, std::vector<uint8_t> data) {
    if (const auto known = tensor_index_.find(name); known != tensor_index_.end()) {
        const isa::TensorInfo& t = program_.tensors[known->second];
        if (t.role != role || t.dtype != dtype || t.shape != shape || (!data.empty() && data != t.data))
            throw std::logic_error("tensor " + name + " is added twice, differently");
        return known->second;
    }
    isa::TensorInfo t;
    t.name = name;
    t.role = role;
    t.dtype = dtype;
    t.location = isa::TensorLocation::Device;
    t.shape = std::move(shape);
    t.offset = device_top_;
    if (!data.empty() && data.size() != t.size_bytes())
        throw std::logic_error("tensor " + name + ": " + std::to_string(data.size()) + " bytes of data for " +
                               std::to_string(t.size_bytes()));
    t.data = std::move(data);
    device_top_ = (device_top_ + t.size_bytes() + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
    program_.tensors.push_back(std::move(t));
    tensor_index_.emplace(name, uint32_t(program_.tensors.size() - 1));
    return uint32_t(program_.tensors.size() - 1);
}

isa::Container ProgramBuilder::finish() {
    finish_cores();
    program_.canonicalize();
    return std::move(program_);
}

uint32_t ProgramBuilder::add_alias(const std::string& name, isa::TensorRole role, isa::DType dtype,
                                   std::vector<uint64_t> shape, uint32_t first) {
    const uint64_t at = program_.tensors.at(first).offset;
    const uint32_t index = add_tensor(name, role, dtype, std::move(shape));
    isa::TensorInfo& alias = program_.tensors[index];
    if (alias.offset == at) return index;  // added before, as an alias
    if (index + 1 != program_.tensors.size() || at + alias.size_bytes() > alias.offset)
        throw std::logic_error("alias " + name + " ends beyond the tensors it covers");
    device_top_ = alias.offset;  // it takes no room
    alias.offset = at;
    set_metadata(isa::kAliasMetadataPrefix + name, program_.tensors[first].name);
    return index;
}

float round_to(float value, isa::DType dtype) {
    switch (dtype) {
        case isa::DType::Fp32: return value;
        case isa::DType::Bf16: return bf16_bits_to_float(float_to_bf16_bits(value));
        case isa::DType::Fp16: return f16_bits_to_float(float_to_f16_bits(value));
        default: throw std::invalid_argument("values are stored as fp32, bf16 or fp16");
    }
}

std::vector<uint8_t> encode_values(const std::vector<float>& values, isa::DType dtype) {
    const size_t size = isa::size_in_bytes(dtype);
    std::vector<uint8_t> bytes(values.size() * size);
    for (size_t i = 0; i < values.size(); ++i) {
        switch (dtype) {
            case isa::DType::Fp32: std::memcpy(&bytes[i * 4], &values[i], 4); break;
            case isa::DType::Bf16: {
                const uint16_t b = float_to_bf16_bits(values[i]);
                std::memcpy(&bytes[i * 2], &b, 2);
                break;
            }
            case isa::DType::Fp16: {
                const uint16_t b = float_to_f16_bits(values[i]);
                std::memcpy(&bytes[i * 2], &b, 2);
                break;
            }
            case isa::DType::Int32: {
                const int32_t v = int32_t(values[i]);
                std::memcpy(&bytes[i * 4], &v, 4);
                break;
            }
            default: throw std::invalid_argument("values are stored as fp32, bf16, fp16 or int32");
        }
    }
    return bytes;
}

std::vector<float> decode_values(const uint8_t* bytes, size_t count, isa::DType dtype) {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) {
        switch (dtype) {
            case isa::DType::Fp32: std::memcpy(&values[i], bytes + i * 4, 4); break;
            case isa::DType::Bf16: {
                uint16_t b;
                std::memcpy(&b, bytes + i * 2, 2);
                values[i] = bf16_bits_to_float(b);
                break;
            }
            case isa::DType::Fp16: {
                uint16_t b;
                std::memcpy(&b, bytes + i * 2, 2);
                values[i] = f16_bits_to_float(b);
                break;
            }
            case isa::DType::Int32: {
                int32_t v;
                std::memcpy(&v, bytes + i * 4, 4);
                values[i] = float(v);
                break;
            }
            default: throw std::invalid_argument("values are stored as fp32, bf16, fp16 or int32");
        }
    }
    return values;
}

}  // namespace nsim::kernels::builder
