// A program - a model built by neuron-build, one assembled by neuron-as, or one made in Python -
// loaded on an Instance and executed the way an application does it: through the nrt-style runtime
// on the emulated driver (code and tensors DMAed over PCIe at load, inputs host->device, the doorbell
// rung and the completion awaited, outputs device->host). One execution's timing is split into its
// parts: host-side embedding (when a BERT model takes embeddings), the runtime call (PCIe copies +
// engines), the engines alone. Shared by `neuron-sim run`, `run --pairs`, `serve` and the Python module.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/run_statistics.h"
#include "core/trace_writer.h"
#include "isa/container.h"
#include "library/instance.h"
#include "npy_file.h"

namespace nsim::library {

// Whether a container is a BERT model from neuron-build (it says where its embedding runs) rather
// than a program of its own (neuron-as, a kernel builder); both run the same way, only BERT has
// batches and copies.
bool is_built_model(const isa::Container& program);
// Whether it carries its weights (built without --timing-only), so it can compute real values.
bool has_weights(const isa::Container& program);
// A numeric metadata value (`fallback` when absent); Error when it is not a number.
uint32_t metadata_u32(const isa::Container& program, const std::string& key, uint32_t fallback);

struct ExecutionTiming {
    double host_embedding_s = 0;   // host CPU: embedding rows for the real sequences (0 on-device)
    double runtime_call_s = 0;     // nrt_execute: inputs over PCIe, engines, outputs over PCIe
    double device_s = 0;           // the engines alone
    // Program cores the engines simulated (the first ones); the others, on devices of their own running
    // the same streams, took their time (driver/runtime/replicated_devices.h).
    uint32_t simulated_cores = 0;
    double end_to_end_s() const { return host_embedding_s + runtime_call_s; }
    sim::core::RunStatistics engines;
};

class Session {
public:
    // Loads `program` (as read from its file: the runtime does not read or decode it again) on
    // `instance` (which must outlive the session); `functional` false runs timing only. Error (one
    // line) when the runtime refuses: not valid, does not fit, wrong generation...
    Session(Instance& instance, isa::Container program, bool functional);
    ~Session();   // unloads the program and frees its tensors
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const isa::Container& program() const { return model_->program; }
    const std::string& name() const { return model_->name; }
    bool functional() const { return functional_; }
    double load_time_s() const { return model_->load_time_s; }
    uint64_t load_pcie_bytes() const { return model_->dma_bytes; }   // code and tensors copied at load
    // What each execution copies over PCIe: every input host->device and every output device->host.
    uint64_t execution_pcie_bytes() const;
    uint32_t sequences_per_execution() const;   // batch x copies
    uint32_t copies() const;                    // data-parallel model copies (1 for pipeline)
    uint32_t batch() const;                     // sequences per copy per execution

    // Input tensor by name (host memory), to fill before execute(); outputs after it. Error naming
    // the tensor when the program has none of that name.
    std::vector<uint8_t>& input(const std::string& name);
    const std::vector<uint8_t>& output(const std::string& name) const;
    // An output as a numpy array (bf16, fp16 and fp8 widened to float32; tools/common/tensor_files.h).
    npy::Array output_array(const std::string& name) const;

    // The next execution is traced into `writer` (null: none): host side, host embedding and engines.
    void trace_next_execution(sim::core::TraceWriter* writer);
    // Executions from now on report, now and then while the engines run, how many of their
    // instructions have issued (empty: no reports).
    void report_progress_to(std::function<void(uint64_t issued, uint64_t total)> progress);

    // One execution; `real_sequences` (default: all) is how many rows the host embeds.
    ExecutionTiming execute(uint32_t real_sequences = UINT32_MAX);
    // One execution of the program's graph `graph` (isa::Container::graphs: a training program's
    // micro-step or optimizer); Error (one line naming the program's graphs) when it has none of that name.
    ExecutionTiming execute_graph(const std::string& graph);

    // The runtime and driver underneath (tests look at the driver's queues).
    runtime::Runtime& runtime() { return instance_.runtime(); }
    const runtime::Model& model() const { return *model_; }
    const config::HostSpec& spec() const { return instance_.spec(); }

    // Host CPU time to embed `sequences` sequences (0 when the device embeds).
    double host_embedding_s(uint32_t sequences) const;

private:
    void release();   // frees the tensors and unloads the program (once)
    ExecutionTiming execute(uint32_t real_sequences, const std::string& graph);

    Instance& instance_;
    bool functional_;
    runtime::Model* model_ = nullptr;
    std::map<std::string, runtime::Tensor*> inputs_, outputs_;
    sim::core::TraceWriter* trace_next_ = nullptr;
};

}  // namespace nsim::library
