// The copies of an nrt_execute call: its input tensors into the model's region before the doorbell,
// its outputs back after the completion.
#include "runtime.h"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

namespace nsim::runtime {

namespace {

// How many model copies a program runs at once: a data-parallel program (metadata parallel=data, as
// neuron-build writes it) one per core, each on its own rows of every input and output: the i-th of
// as many equal parts as there are cores. A program with a region per core
// (sim::core::has_region_per_core) is one copy per core too, each tensor whole in each core's region:
// a host tensor of as many copies of it as there are cores gives (or takes) core i the i-th.
uint32_t data_parallel_copies(const Model& model) {
    return model.program.metadata_value("parallel") == "data" || model.loaded.placement.region_per_core
               ? uint32_t(model.loaded.placement.cores.size())
               : 1;
}

}  // namespace

NrtStatus Runtime::move_tensor(Model& model, const isa::TensorInfo& info, Tensor& tensor, bool into_model) {
    // Into the model: every device's home copy of the region (each device's cores read their own);
    // out of it: the first device's.
    std::vector<uint64_t> regions{model.host_region_handle};
    if (info.location == isa::TensorLocation::Device) {
        regions.clear();
        const sim::core::ProgramPlacement& placement = model.loaded.placement;
        for (size_t r = 0; r < placement.device_regions.size(); ++r)
            if (placement.device_regions[r].home) regions.push_back(model.region_handles[r]);
        if (!into_model) regions.resize(1);
    }
    const uint64_t size = std::min(info.size_bytes(), tensor.size);
    std::vector<uint8_t> staging;
    try {
        for (const uint64_t region : regions) {
            if (tensor.placement == TensorPlacement::Device) {
                // Device to device goes through the host here (no device-side copy engine call yet).
                staging.resize(size);
                if (into_model) {
                    driver_->copy_from_device(tensor.handle, 0, staging.data(), size);
                    driver_->copy_to_device(region, info.offset, staging.data(), size);
                } else {
                    driver_->copy_from_device(region, info.offset, staging.data(), size);
                    driver_->copy_to_device(tensor.handle, 0, staging.data(), size);
                }
            } else if (into_model) {
                driver_->copy_to_device(region, info.offset, tensor.host.data(), size);
            } else {
                driver_->copy_from_device(region, info.offset, tensor.host.data(), size);
            }
        }
    } catch (const driver::DriverError& e) {
        return fail(e.error() == ETIMEDOUT ? NrtStatus::Timeout : NrtStatus::Failure, "nrt_execute", e.what());
    }
    return NrtStatus::Success;
}

// The benchmark's threads, one per model copy, each copy only their own tensors, all at once (so
// they share the PCIe link), each on its own core's H2T queue. The runtime does the same for a
// data-parallel program: each copy's part of every tensor moves on its core's queue, the copies'
// at the same time, and the call takes as long as one copy's copies under that contention. A tensor
// that does not split evenly, or sits in device memory of its own, moves whole, alone, as before.
NrtStatus Runtime::move_tensors(Model& model, const TensorSet& set, bool into_model, const HostTrace& trace) {
    const isa::TensorRole role = into_model ? isa::TensorRole::Input : isa::TensorRole::Output;
    const HostTrack track = into_model ? HostTrack::ToDevice : HostTrack::FromDevice;
    const std::string kind = into_model ? "input " : "output ";
    const sim::core::ProgramPlacement& placement = model.loaded.placement;
    const uint32_t copies = data_parallel_copies(model);
    std::vector<driver::NeuronDriver::CopyLane> lanes(copies);
    std::vector<const isa::TensorInfo*> split;  // the tensors each lane copies a part of, in its order
    for (size_t t = 0; t < model.program.tensors.size(); ++t) {
        const isa::TensorInfo& info = model.program.tensors[t];
        if (info.role != role || !model.graph_uses(t)) continue;
        auto it = set.tensors.find(info.name);
        if (it == set.tensors.end() || !it->second) continue;
        Tensor& tensor = *it->second;
        const uint64_t bytes = info.size_bytes();
        const bool per_core = placement.region_per_core;
        if (copies > 1 && tensor.placement != TensorPlacement::Device && info.location == isa::TensorLocation::Device &&
            !info.shape.empty() && (per_core ? tensor.size >= copies * bytes : info.shape[0] % copies == 0 && tensor.size >= bytes)) {
            const uint64_t part = per_core ? bytes : bytes / copies;
            for (uint32_t c = 0; c < copies; ++c) {
                const sim::core::PhysicalCore& core = placement.cores[c];
                const sim::core::DeviceRegion& home = placement.region_for(c, info.role);
                const size_t r = size_t(&home - placement.device_regions.data());
                lanes[c].nc = core.core;
                lanes[c].copies.push_back({model.region_handles[r], info.offset + (per_core ? 0 : c * part),
                                           tensor.host.data() + c * part, part, into_model});
            }
            split.push_back(&info);
            continue;
        }
        const uint64_t copy_start = HostTrace::now_ps();
        if (const NrtStatus s = move_tensor(model, info, tensor, into_model); s != NrtStatus::Success) return s;
        trace.slice_until_now(track, kind + info.name, copy_start,
                              sim::core::JsonArgs().text("tensor", info.name).integer("bytes", bytes));
    }
    if (split.empty()) return NrtStatus::Success;
    std::vector<std::vector<driver::NeuronDriver::CopySpan>> spans;
    try {
        spans = driver_->copy_concurrently(lanes);
    } catch (const driver::DriverError& e) {
        return fail(e.error() == ETIMEDOUT ? NrtStatus::Timeout : NrtStatus::Failure, "nrt_execute", e.what());
    }
    for (uint32_t c = 0; c < copies; ++c)
        for (size_t t = 0; t < split.size(); ++t)
            trace.slice(track, fmt::format("{}{} (copy {})", kind, split[t]->name, c), spans[c][t].start.value(),
                        spans[c][t].end.value(),
                        sim::core::JsonArgs().text("tensor", split[t]->name).integer("bytes", lanes[c].copies[t].size));
    return NrtStatus::Success;
}

}  // namespace nsim::runtime
