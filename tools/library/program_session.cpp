#include "library/program_session.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "host_trace.h"
#include "library/library_error.h"
#include "tensor_files.h"

namespace nsim::library {

uint32_t metadata_u32(const isa::Container& program, const std::string& key, uint32_t fallback) {
    const std::string text = program.metadata_value(key);
    if (text.empty()) return fallback;
    try {
        return uint32_t(std::stoul(text));
    } catch (const std::exception&) {
        throw Error(fmt::format("the model's metadata '{}' is '{}', not a number", key, text));
    }
}

bool is_built_model(const isa::Container& program) { return !program.metadata_value("embedding").empty(); }
bool has_weights(const isa::Container& program) { return program.metadata_value("weights").rfind("included", 0) == 0; }

Session::Session(Instance& instance, isa::Container program, bool functional)
    : instance_(instance), functional_(functional) {
    runtime::Runtime& rt = runtime();
    if (rt.load(std::move(program), -1, &model_) != runtime::NrtStatus::Success) throw Error(rt.last_error());
    // Each device's cores write outputs into that device's memory, and the runtime reads them back from
    // the first device's only: a functional run over several devices would return stale rows.
    const size_t devices = model_->loaded.placement.devices().size();
    if (functional_ && devices > 1) {
        release();
        throw Error(fmt::format("functional runs of a model over {} devices are not supported (outputs are read from "
                                "the first device only); build it for at most {} cores",
                                devices, spec().chip.cores_per_device));
    }
    // A program whose cores keep their own tensors (sim::core::has_region_per_core) takes (and gives)
    // each core's copy of an input (output), one after another: input() and output() hold them all.
    const uint64_t copies = model_->loaded.placement.region_per_core ? model_->loaded.placement.cores.size() : 1;
    for (const isa::TensorInfo& t : model_->program.tensors) {
        if (t.role != isa::TensorRole::Input && t.role != isa::TensorRole::Output) continue;
        runtime::Tensor* tensor = nullptr;
        if (rt.tensor_allocate(runtime::TensorPlacement::Host, int32_t(model_->vnc), t.size_bytes() * copies, t.name, &tensor) !=
            runtime::NrtStatus::Success) {
            const std::string message = rt.last_error();
            release();
            throw Error(message);
        }
        // A program's own input values (an assembled program's .data) are what it runs on.
        if (t.role == isa::TensorRole::Input && !t.data.empty())
            for (uint64_t c = 0; c < copies; ++c)
                std::copy_n(t.data.begin(), std::min(t.data.size(), tensor->host.size() - c * t.size_bytes()),
                            tensor->host.begin() + c * t.size_bytes());
        (t.role == isa::TensorRole::Input ? inputs_ : outputs_)[t.name] = tensor;
    }
}

Session::~Session() { release(); }

void Session::release() {
    runtime::Runtime& rt = runtime();
    for (auto* tensors : {&inputs_, &outputs_}) {
        for (auto& [name, tensor] : *tensors) rt.tensor_free(&tensor);
        tensors->clear();
    }
    if (model_) rt.unload(model_);
    model_ = nullptr;
}

void Session::trace_next_execution(sim::core::TraceWriter* writer) {
    trace_next_ = writer;
    runtime().trace_next_execution(writer);
}

void Session::report_progress_to(std::function<void(uint64_t issued, uint64_t total)> progress) {
    instance_.engines().report_progress_to(std::move(progress));
}

uint64_t Session::execution_pcie_bytes() const {
    uint64_t bytes = 0;
    for (const auto& tensors : {inputs_, outputs_})
        for (const auto& [name, tensor] : tensors) bytes += tensor->host.size();
    return bytes;
}

uint32_t Session::copies() const {
    return program().metadata_value("parallel") == "pipeline" ? 1 : metadata_u32(program(), "cores", 1);
}
uint32_t Session::batch() const { return metadata_u32(program(), "batch", 1); }
uint32_t Session::sequences_per_execution() const {
    return metadata_u32(program(), "sequences_per_execution", batch() * copies());
}

std::vector<uint8_t>& Session::input(const std::string& name) {
    auto it = inputs_.find(name);
    if (it == inputs_.end()) throw Error("the model has no input tensor '" + name + "'");
    return it->second->host;
}

const std::vector<uint8_t>& Session::output(const std::string& name) const {
    auto it = outputs_.find(name);
    if (it == outputs_.end()) throw Error("the model has no output tensor '" + name + "'");
    return it->second->host;
}

npy::Array Session::output_array(const std::string& name) const {
    const std::vector<uint8_t>& bytes = output(name);
    for (const isa::TensorInfo& t : program().tensors)
        if (t.name == name && t.role == isa::TensorRole::Output) return tensor_files::tensor_array(t, bytes);
    throw Error("the model has no output tensor '" + name + "'");
}

double Session::host_embedding_s(uint32_t sequences) const {
    if (program().metadata_value("embedding") != "host") return 0;
    if (spec().instance.host_copy_bytes_per_s <= 0)
        throw Error(fmt::format("instance {} has no host_copy_bytes_per_s in its config: the host-side embedding cannot be timed",
                                spec().instance.name));
    // Per token the host reads a word, a position and a token-type row and writes their
    // layer-normalised sum (fp32); the normalisation itself stays in cache.
    const double row_bytes = 4.0 * metadata_u32(program(), "hidden_size", 0);
    const double bytes = double(sequences) * metadata_u32(program(), "seq_len", 0) * row_bytes * 4;
    return bytes / spec().instance.host_copy_bytes_per_s;
}

ExecutionTiming Session::execute(uint32_t real_sequences) { return execute(real_sequences, ""); }

ExecutionTiming Session::execute_graph(const std::string& graph) { return execute(UINT32_MAX, graph); }

ExecutionTiming Session::execute(uint32_t real_sequences, const std::string& graph) {
    ExecutionTiming timing;
    // Each copy's batch is embedded by its own host thread, concurrently (serve's model of workers,
    // one per copy): the execution waits for the fullest copy's batch.
    timing.host_embedding_s = host_embedding_s(std::min({real_sequences, sequences_per_execution(), batch()}));
    runtime::TensorSet inputs, outputs;
    for (auto& [name, tensor] : inputs_) inputs.tensors[name] = tensor;
    for (auto& [name, tensor] : outputs_) outputs.tensors[name] = tensor;
    runtime::Runtime& rt = runtime();
    instance_.engines().set_functional(functional_);
    // The embedding is timed, not simulated (host time does not pass for it): its slice ends where the
    // runtime call begins.
    const runtime::HostTrace trace(std::exchange(trace_next_, nullptr));
    const uint64_t call_ps = runtime::HostTrace::now_ps();
    if (timing.host_embedding_s > 0)
        trace.slice(runtime::HostTrack::Application, "host embedding",
                    call_ps - std::min(call_ps, uint64_t(std::llround(timing.host_embedding_s * 1e12))), call_ps);
    if (rt.execute(model_, graph, inputs, &outputs) != runtime::NrtStatus::Success) {
        const std::string& report = model_->last_result.report;
        throw Error(rt.last_error() + (report.empty() ? "" : "\n" + report));
    }
    // In whole picoseconds: the same call takes the same time whenever it starts (a double of the
    // absolute times would round differently later in a run).
    timing.runtime_call_s = double(runtime::HostTrace::now_ps() - call_ps) * 1e-12;
    timing.engines = instance_.engines().last_statistics();
    timing.device_s = timing.engines.time_s;
    timing.simulated_cores = model_->last_result.simulated_cores;
    return timing;
}

}  // namespace nsim::library
