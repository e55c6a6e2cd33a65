#include "neuron-sim/model_session.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "host_time.h"

namespace nsim::tools {

uint32_t metadata_u32(const isa::Container& program, const std::string& key, uint32_t fallback) {
    const std::string text = program.metadata_value(key);
    if (text.empty()) return fallback;
    try {
        return uint32_t(std::stoul(text));
    } catch (const std::exception&) {
        throw UserError(fmt::format("the model's metadata '{}' is '{}', not a number", key, text));
    }
}

bool is_built_model(const isa::Container& program) { return !program.metadata_value("embedding").empty(); }
bool has_weights(const isa::Container& program) { return program.metadata_value("weights").rfind("included", 0) == 0; }

ModelSession::ModelSession(const config::HostSpec& spec, isa::Container program, bool functional)
    : spec_(spec), functional_(functional) {
    try {
        runtime_ = std::make_unique<runtime::Runtime>(spec_);
    } catch (const std::exception& e) {
        throw UserError(e.what());
    }
    auto executor = std::make_unique<runtime::EngineExecutor>(functional);
    executor_ = executor.get();
    runtime_->set_executor(std::move(executor));
    if (runtime_->init() != runtime::NrtStatus::Success) throw UserError(runtime_->last_error());
    if (runtime_->load(std::move(program), -1, &model_) != runtime::NrtStatus::Success) throw UserError(runtime_->last_error());
    // Each device's cores write outputs into that device's memory, and the runtime reads them back from
    // the first device's only: a functional run over several devices would return stale rows.
    const size_t devices = model_->loaded.placement.devices().size();
    if (functional_ && devices > 1)
        throw UserError(fmt::format("functional runs of a model over {} devices are not supported (outputs are read from "
                                    "the first device only); build it for at most {} cores",
                                    devices, spec_.chip.cores_per_device));
    for (const isa::TensorInfo& t : model_->program.tensors) {
        if (t.role != isa::TensorRole::Input && t.role != isa::TensorRole::Output) continue;
        runtime::Tensor* tensor = nullptr;
        if (runtime_->tensor_allocate(runtime::TensorPlacement::Host, int32_t(model_->vnc), t.size_bytes(), t.name, &tensor) !=
            runtime::NrtStatus::Success)
            throw UserError(runtime_->last_error());
        // A program's own input values (an assembled program's .data) are what it runs on.
        if (t.role == isa::TensorRole::Input && !t.data.empty())
            std::copy_n(t.data.begin(), std::min(t.data.size(), tensor->host.size()), tensor->host.begin());
        (t.role == isa::TensorRole::Input ? inputs_ : outputs_)[t.name] = tensor;
    }
}

ModelSession::~ModelSession() = default;

void ModelSession::trace_next_execution(std::ostream* out) { executor_->trace_next_execution(out); }

void ModelSession::report_progress_to(std::function<void(uint64_t issued, uint64_t total)> progress) {
    executor_->report_progress_to(std::move(progress));
}

uint64_t ModelSession::execution_pcie_bytes() const {
    uint64_t bytes = 0;
    for (const auto& tensors : {inputs_, outputs_})
        for (const auto& [name, tensor] : tensors) bytes += tensor->host.size();
    return bytes;
}

uint32_t ModelSession::copies() const {
    return program().metadata_value("parallel") == "pipeline" ? 1 : metadata_u32(program(), "cores", 1);
}
uint32_t ModelSession::batch() const { return metadata_u32(program(), "batch", 1); }
uint32_t ModelSession::sequences_per_execution() const {
    return metadata_u32(program(), "sequences_per_execution", batch() * copies());
}

std::vector<uint8_t>& ModelSession::input(const std::string& name) {
    auto it = inputs_.find(name);
    if (it == inputs_.end()) throw UserError("the model has no input tensor '" + name + "'");
    return it->second->host;
}

const std::vector<uint8_t>& ModelSession::output(const std::string& name) const {
    auto it = outputs_.find(name);
    if (it == outputs_.end()) throw UserError("the model has no output tensor '" + name + "'");
    return it->second->host;
}

double ModelSession::host_embedding_s(uint32_t sequences) const {
    if (program().metadata_value("embedding") != "host") return 0;
    if (spec_.instance.host_copy_bytes_per_s <= 0)
        throw UserError(fmt::format("instance {} has no host_copy_bytes_per_s in its config: the host-side embedding cannot be timed",
                                    spec_.instance.name));
    // Per token the host reads a word, a position and a token-type row and writes their
    // layer-normalised sum (fp32); the normalisation itself stays in cache.
    const double row_bytes = 4.0 * metadata_u32(program(), "hidden_size", 0);
    const double bytes = double(sequences) * metadata_u32(program(), "seq_len", 0) * row_bytes * 4;
    return bytes / spec_.instance.host_copy_bytes_per_s;
}

ExecutionTiming ModelSession::execute(uint32_t real_sequences) {
    ExecutionTiming timing;
    // Each copy's batch is embedded by its own host thread, concurrently (serve's model of workers,
    // one per copy): the execution waits for the fullest copy's batch.
    timing.host_embedding_s = host_embedding_s(std::min({real_sequences, sequences_per_execution(), batch()}));
    runtime::TensorSet inputs, outputs;
    for (auto& [name, tensor] : inputs_) inputs.tensors[name] = tensor;
    for (auto& [name, tensor] : outputs_) outputs.tensors[name] = tensor;
    const double start = driver::host_time::now_s();
    if (runtime_->execute(model_, inputs, &outputs) != runtime::NrtStatus::Success) {
        const std::string& report = model_->last_result.report;
        throw UserError(runtime_->last_error() + (report.empty() ? "" : "\n" + report));
    }
    timing.runtime_call_s = driver::host_time::now_s() - start;
    timing.engines = executor_->last_statistics();
    timing.device_s = timing.engines.time_s;
    return timing;
}

}  // namespace nsim::tools
