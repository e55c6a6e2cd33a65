// A whole program for one NeuronCore generation: its DRAM tensors (weights, inputs, outputs) laid
// out in the program's device region, metadata, and one CoreBuilder per program core.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
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
    // `data` is empty or exactly the tensor's bytes. A name added before is that tensor (the graphs of
    // a program share their tensors, so a graph built by the same code as another finds them): same
    // role, dtype and shape, and the same contents when `data` is given, else std::logic_error.
    uint32_t add_tensor(const std::string& name, isa::TensorRole role, isa::DType dtype, std::vector<uint64_t> shape,
                        std::vector<uint8_t> data = {});
    // A tensor over bytes of the device region tensors added before hold, from tensor `first`'s offset
    // on (no room or contents of its own): one name for a run of consecutive tensors, as a
    // collective over a bucket of gradients reads them. std::logic_error if it ends beyond them.
    uint32_t add_alias(const std::string& name, isa::TensorRole role, isa::DType dtype, std::vector<uint64_t> shape,
                       uint32_t first);
    const isa::TensorInfo& tensor(uint32_t index) const { return program_.tensors.at(index); }
    uint64_t device_bytes() const { return device_top_; }

    // Starts graph `name` of the program (isa::Container::graphs, FORMAT.md §4.6): what the cores
    // emitted since the last call belongs to the graph before, and every core starts afresh (no
    // queues, semaphores, on-chip buffers or DMA channels), as an execution of a graph starts from
    // zero semaphores and can assume nothing of on-chip memory. References into the cores before
    // (CoreBuilder&, DmaChannel&, buffers, contexts built on them) are invalid after it; the tensors
    // and the metadata stay. A program names all its graphs or none: instructions before the first
    // call, or a name given twice, are a std::logic_error.
    void begin_graph(const std::string& name);

    // The finished program (streams sorted, section numbers set). Call once.
    isa::Container finish();

private:
    void make_cores();
    // Ends the current graph: the cores' streams into the program, tagged with its index.
    void finish_cores();

    config::NeuronCoreSpec spec_;
    isa::Container program_;
    std::vector<std::unique_ptr<CoreBuilder>> cores_;
    uint64_t device_top_ = 0;
    std::optional<uint32_t> rounding_seed_;
    std::map<std::string, uint32_t> tensor_index_;  // by name
    size_t graph_first_stream_ = 0;  // the current graph's first stream in program_.streams
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
