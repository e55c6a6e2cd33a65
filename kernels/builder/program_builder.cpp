#include "builder/program_builder.h"

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
    for (uint32_t c = 0; c < cores; ++c) cores_.push_back(std::make_unique<CoreBuilder>(spec_, c, program_));
}

void ProgramBuilder::set_stochastic_rounding(uint32_t seed) {
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
    return uint32_t(program_.tensors.size() - 1);
}

isa::Container ProgramBuilder::finish() {
    for (auto& core : cores_) core->finish();
    program_.canonicalize();
    return std::move(program_);
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
