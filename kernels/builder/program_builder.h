// A whole program for one NeuronCore generation: its DRAM tensors (weights, inputs, outputs) laid
// out in the program's device region, metadata, and one CoreBuilder per program core.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "builder/core_builder.h"
#include "config/host_spec.h"
#include "isa/container.h"

namespace nsim::kernels::builder {

class ProgramBuilder {
public:
    ProgramBuilder(const config::NeuronCoreSpec& spec, uint32_t cores);

    const config::NeuronCoreSpec& spec() const { return spec_; }
    uint32_t cores() const { return uint32_t(cores_.size()); }
    CoreBuilder& core(uint32_t index) { return *cores_.at(index); }

    void set_metadata(const std::string& key, const std::string& value);
    // Stochastic rounding on every core (CoreBuilder::set_stochastic_rounding), recorded in the
    // metadata as `stochastic_rounding seed=N`. Call before any instruction.
    void set_stochastic_rounding(uint32_t seed);
    // A tensor of the device region (64-byte aligned, in the order added); returns its index.
    // `data` is empty or exactly the tensor's bytes.
    uint32_t add_tensor(const std::string& name, isa::TensorRole role, isa::DType dtype, std::vector<uint64_t> shape,
                        std::vector<uint8_t> data = {});
    const isa::TensorInfo& tensor(uint32_t index) const { return program_.tensors.at(index); }
    uint64_t device_bytes() const { return device_top_; }

    // The finished program (streams sorted, section numbers set). Call once.
    isa::Container finish();

private:
    config::NeuronCoreSpec spec_;
    isa::Container program_;
    std::vector<std::unique_ptr<CoreBuilder>> cores_;
    uint64_t device_top_ = 0;
};

// Tensor element bytes of fp32 values stored as `dtype` (fp32, bf16, fp16: round to nearest even).
std::vector<uint8_t> encode_values(const std::vector<float>& values, isa::DType dtype);
// And back (for tests and the runner).
std::vector<float> decode_values(const uint8_t* bytes, size_t count, isa::DType dtype);
// The value a float takes when stored as `dtype`.
float round_to(float value, isa::DType dtype);

// N of "vN" (the container's generation field).
uint32_t generation_number(const config::NeuronCoreSpec& spec);

}  // namespace nsim::kernels::builder
