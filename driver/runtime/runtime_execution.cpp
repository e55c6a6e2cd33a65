// The runtime's nrt_execute: inputs host -> device, the doorbell, the completion notification,
// outputs device -> host, the per-call overhead, the trace of the call and the activity neuron-top reads.
#include "runtime.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "core_selection.h"
#include "program_flops.h"
#include "platform/device_address_map.h"
#include "platform/execution_doorbells.h"
#include "platform/shared_pages.h"
#include "host_time.h"
#include "isa/container_io.h"
#include "isa/encoding.h"
#include "isa/validator.h"
#include "validation/generation_limits.h"

namespace nsim::runtime {

namespace {

constexpr size_t kActivitySamplesKept = 64;  // per core, enough for neuron-top's window
// How long nrt_execute waits for a notification without NEURON_RT_EXEC_TIMEOUT: the runtime's
// default (driver.md 12), a software setting rather than a property of the hardware.
constexpr double kDefaultExecTimeoutS = 30;

}  // namespace

driver::ActivityPublisher& Runtime::activity() {
    if (!activity_)
        activity_ = std::make_unique<driver::ActivityPublisher>(*state_, driver_->session().identity().pid,
                                                                kActivitySamplesKept, options_.process_tag.value_or(""));
    return *activity_;
}

void Runtime::record_activity(const Model& model, const ExecutionResult& result, double total_latency_s) {
    std::vector<driver::ActivityPublisher::CoreBusy> cores;
    const auto& placed = model.loaded.placement.cores;
    const std::vector<double>& flops = model.flops_per_core.at(model.request.graph);
    for (size_t i = 0; i < placed.size(); ++i)
        cores.push_back({{placed[i].device, placed[i].core},
                         i < result.core_busy_s.size() ? result.core_busy_s[i] : result.device_seconds,
                         i < flops.size() ? flops[i] : 0.0});
    activity().count_execution(driver::ActivityPublisher::Outcome::Completed, total_latency_s, result.device_seconds);
    activity().publish(driver::host_time::now_s(), total_latency_s, cores, application_time_.total_s());
}

NrtStatus Runtime::execution_failed(NrtStatus status, const std::string& message) {
    using Outcome = driver::ActivityPublisher::Outcome;
    activity().count_execution(status == NrtStatus::Timeout ? Outcome::TimedOut
                               : status == NrtStatus::ExecCompletedWithErr ? Outcome::CompletedWithError
                                                                           : Outcome::Failed);
    activity().publish(driver::host_time::now_s(), 0, {});
    return fail(status, "nrt_execute", message);
}

NrtStatus Runtime::execute(Model* model, const TensorSet& inputs, TensorSet* outputs) {
    return execute(model, "", inputs, outputs);
}

NrtStatus Runtime::execute(Model* model, const std::string& graph_name, const TensorSet& inputs, TensorSet* outputs) {
    const ApplicationTime::Call call(application_time_);

    const std::string where = "nrt_execute";
    const HostTrace trace(std::exchange(trace_next_, nullptr));
    if (const NrtStatus s = check_usable(where); s != NrtStatus::Success) return s;
    const double start = driver::host_time::now_s();
    const uint64_t start_ps = HostTrace::now_ps();
    if (std::none_of(models_.begin(), models_.end(), [&](const auto& m) { return m.get() == model; }))
        return fail(NrtStatus::InvalidHandle, where, "not a loaded model");
    const std::optional<uint32_t> graph = model->program.graph_index(graph_name);
    if (!graph)
        return fail(NrtStatus::Invalid, where, fmt::format("graph '{}' is not in {} (its graphs: {})", graph_name,
                                                                   model->name, model->program.graph_list()));
    model->request = ExecutionRequest{};
    model->request.graph = *graph;
    if (trace) {
        model->request.trace = trace.writer();
        model->request.trace->set_origin(start_ps);
        trace.slice(HostTrack::Application, "nrt_load " + model->name, model->load_started_ps,
                    model->load_started_ps + uint64_t(std::llround(model->load_time_s * 1e12)),
                    sim::core::JsonArgs().integer("pcie_bytes", model->dma_bytes));
    }
    for (size_t t = 0; t < model->program.tensors.size(); ++t) {
        const isa::TensorInfo& info = model->program.tensors[t];
        if (info.role != isa::TensorRole::Input || !model->graph_uses(t)) continue;
        auto it = inputs.tensors.find(info.name);
        if (it == inputs.tensors.end() || !it->second)
            return fail(NrtStatus::ExecBadInput, where, fmt::format("input tensor '{}' is missing", info.name));
        if (it->second->size < info.size_bytes())
            return fail(NrtStatus::ExecBadInput, where, fmt::format("input tensor '{}' has {} bytes, the model needs {}",
                                                                    info.name, it->second->size, info.size_bytes()));
    }
    if (const NrtStatus s = move_tensors(*model, inputs, true, trace); s != NrtStatus::Success) return s;
    if (!executor_)
        return fail(NrtStatus::Failure, where, "no instruction executor is installed (the NeuronCore engines are not wired to the runtime)");
    // The runtime's own work per call (request set-up, doorbell, completion wake-up), besides the copies.
    const uint64_t overhead_start = HostTrace::now_ps();
    driver::host_time::advance_s(spec_.chip.driver.runtime_execute_overhead_s);
    trace.slice_until_now(HostTrack::Runtime, "runtime overhead", overhead_start);
    // The doorbell runs the model being executed, also when another one was loaded on its core since.
    install_on_sequencer(*model);
    model->request.timeout_s = options_.exec_timeout_s.value_or(0);
    model->last_result = ExecutionResult{};
    // The doorbell of the model's first core starts it; its notification says it is over.
    const sim::core::PhysicalCore& first = model->loaded.placement.cores.front();
    driver::NotificationQueue::Completion completion;
    const uint64_t doorbell_ps = HostTrace::now_ps();
    try {
        completion = driver_->execute(first.device, first.core, options_.exec_timeout_s.value_or(kDefaultExecTimeoutS));
    } catch (const driver::DriverError& e) {
        return execution_failed(e.error() == ETIMEDOUT ? NrtStatus::Timeout : NrtStatus::Failure, e.what());
    }
    trace.slice_until_now(HostTrack::Runtime, "doorbell to completion", doorbell_ps,
                          sim::core::JsonArgs().text("core", fmt::format("nd{} nc{}", first.device, first.core)));
    if (completion.status == sim::ExecutionDoorbells::kNothingLoaded)
        return execution_failed(NrtStatus::Failure, fmt::format("nd{} nc{} has no program loaded", first.device, first.core));
    const ExecutionResult& result = model->last_result;
    if (!result.ok)
        return execution_failed(result.timed_out ? NrtStatus::Timeout : NrtStatus::ExecCompletedWithErr, result.message);
    if (outputs)
        if (const NrtStatus s = move_tensors(*model, *outputs, false, trace); s != NrtStatus::Success) return s;
    trace.slice_until_now(HostTrack::Runtime, "nrt_execute " + model->name, start_ps);
    for (const auto& c : model->loaded.placement.cores) driver_->count_inferences(c.device, c.core, 1);
    record_activity(*model, result, driver::host_time::now_s() - start);
    return NrtStatus::Success;
}

}  // namespace nsim::runtime
