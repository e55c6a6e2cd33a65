// The runtime's nrt_load and nrt_unload: a program validated, placed in device memory through the
// driver (code and tensors over PCIe), installed on its cores' sequencers; and freed again.
#include "runtime.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "collective_rank_sets.h"
#include "core_selection.h"
#include "program_flops.h"
#include "replicated_devices.h"
#include "platform/device_address_map.h"
#include "platform/execution_doorbells.h"
#include "platform/shared_pages.h"
#include "host_time.h"
#include "isa/container_io.h"
#include "isa/encoding.h"
#include "isa/validator.h"
#include "validation/generation_limits.h"

namespace nsim::runtime {

void Runtime::install_on_sequencer(Model& model) {
    const sim::core::PhysicalCore& first = model.loaded.placement.cores.front();
    sim::ExecutionDoorbells* doorbells = platform().devices().at(first.device)->doorbells();
    if (!doorbells) return;
    doorbells->set_launcher(first.core, [this, m = &model](uint32_t) {
        m->last_result = executor_ ? executor_->execute(platform(), m->loaded, m->request) : ExecutionResult{};
        if (!executor_) m->last_result.message = "no instruction executor is installed (the NeuronCore engines are not wired to the runtime)";
        return m->last_result.ok ? sim::ExecutionDoorbells::kCompleted : sim::ExecutionDoorbells::kFailed;
    });
}

void Runtime::remove_from_sequencer(const Model& model) {
    if (model.loaded.placement.cores.empty()) return;
    const sim::core::PhysicalCore& first = model.loaded.placement.cores.front();
    if (sim::ExecutionDoorbells* doorbells = platform().devices().at(first.device)->doorbells())
        doorbells->set_launcher(first.core, {});
}

void Runtime::free_model_memory(Model& model) {
    remove_from_sequencer(model);
    for (uint64_t handle : model.handles) {
        try {
            driver_->mem_free(handle);
        } catch (const driver::DriverError&) {
        }
    }
    model.handles.clear();
}

NrtStatus Runtime::load(const std::vector<uint8_t>& neff, int32_t vnc, Model** out) {
    const ApplicationTime::Call call(application_time_);

    if (const NrtStatus s = check_usable("nrt_load"); s != NrtStatus::Success) return s;
    isa::Container program;
    try {
        program = isa::read_container(neff);
    } catch (const isa::ContainerError& e) {
        return fail(NrtStatus::Invalid, "nrt_load", fmt::format("invalid model: {}", e.what()));
    }
    return load(std::move(program), vnc, out);
}

NrtStatus Runtime::load(isa::Container read_program, int32_t vnc, Model** out) {
    const ApplicationTime::Call call(application_time_);

    const std::string where = "nrt_load";
    if (const NrtStatus s = check_usable(where); s != NrtStatus::Success) return s;
    const double start = driver::host_time::now_s();
    auto model = std::make_unique<Model>();
    model->load_started_ps = HostTrace::now_ps();
    model->program = std::move(read_program);
    const isa::Container& program = model->program;
    const uint32_t generation = sim::generation_of_chip(spec_.chip);
    if (program.generation != generation)
        return fail(NrtStatus::UnsupportedNeffVersion, where,
                    fmt::format("the model is for NeuronCore-v{}, but {} has {}", program.generation, spec_.instance.name,
                                spec_.chip.core.name));
    const auto problems = isa::validate(program, sim::limits_of_chip(spec_.chip));
    if (!problems.empty())
        return fail(NrtStatus::Invalid, where,
                    fmt::format("invalid model: {}{}", problems.front().text(),
                                problems.size() > 1 ? fmt::format(" (and {} more problems)", problems.size() - 1) : ""));

    // Program core i runs on the i-th physical core of this process's cores, from `vnc` on.
    const uint32_t first = vnc < 0 ? (claimed_.empty() ? 0 : claimed_.front()) : uint32_t(vnc);
    const auto position = std::find(claimed_.begin(), claimed_.end(), first);
    if (position == claimed_.end())
        return fail(NrtStatus::Invalid, where, fmt::format("Could not find VNC id {} (this process holds {})", first,
                                                           describe_cores(claimed_)));
    std::vector<sim::core::PhysicalCore>& cores = model->loaded.placement.cores;
    for (auto it = position; it != claimed_.end(); ++it)
        for (const driver::CoreId& c : physical_cores(*it))
            cores.push_back({c.device, c.core, spec_.chip.memory_channel_of_core(c.core)});
    if (cores.size() < program.cores_needed)
        return fail(NrtStatus::LoadNotEnoughNc, where,
                    fmt::format("the model needs {} NeuronCores, this process holds {} from nc{} on", program.cores_needed,
                                cores.size(), first));
    cores.resize(program.cores_needed);
    if (const std::string refused = refused_collective(program, cores, spec_); !refused.empty())
        return fail(NrtStatus::Invalid, where, refused);
    model->vnc = first;
    model->id = next_model_id_++;
    model->name = program.metadata_value("model").empty() ? fmt::format("model{}", model->id) : program.metadata_value("model");
    model->loaded.program = &model->program;
    for (uint32_t g = 0; g < model->program.graph_count(); ++g) {
        model->flops_per_core.push_back(matmul_flops_per_core(model->program, g));
        // Which inputs and outputs each graph names (one graph: all of them, without looking).
        if (model->program.graph_count() > 1) model->tensors_of_graph.push_back(isa::tensors_of_graph(model->program, g));
    }

    sim::core::ProgramPlacement& placement = model->loaded.placement;
    // The runtime seeds the cores' stochastic rounding at load: the model's executions draw from its seed.
    sim::core::restart_rounding_streams(platform(), placement);
    for (const isa::TensorInfo& t : program.tensors) {
        const uint64_t end = t.offset + t.size_bytes();
        if (t.location == isa::TensorLocation::Device) placement.device_region_bytes = std::max(placement.device_region_bytes, end);
        else placement.host_region_bytes = std::max(placement.host_region_bytes, end);
    }
    const sim::DeviceAddressMap address_map = sim::DeviceAddressMap::for_chip(spec_.chip);
    // Where the model's device memory lies, core by core and by category (neuron-top, neuron-monitor).
    std::vector<driver::CoreMemoryUsage> usage;
    auto usage_of = [&](unsigned device, unsigned core) -> driver::CoreMemoryUsage& {
        for (auto& u : usage)
            if (u.core == driver::CoreId{device, core}) return u;
        usage.push_back({{device, core}});
        return usage.back();
    };
    try {
        // The DRAM tensors' region: a copy in each device's home channel, and the weights' copies next
        // to the other cores (sim/core/program_placement.h).
        // A program whose cores keep their own state has a whole copy next to each core.
        placement.region_per_core = sim::core::has_region_per_core(program);
        placement.device_regions = sim::core::region_copies(placement.cores, placement.region_per_core);
        for (sim::core::DeviceRegion& copy : placement.device_regions) {
            const size_t r = size_t(&copy - placement.device_regions.data());
            const auto core = placement.region_per_core ? cores.begin() + r : std::find_if(cores.begin(), cores.end(), [&](const auto& c) {
                return c.device == copy.device && c.memory_channel == copy.channel;
            });
            const uint64_t handle = driver_->mem_alloc(copy.device, std::max<uint64_t>(1, placement.device_region_bytes),
                                                       copy.channel, core->core, driver::Lifespan::Process);
            model->handles.push_back(handle);
            model->region_handles.push_back(handle);
            copy.offset = driver_->chunk(handle).address - address_map.channel(copy.channel);
            model->device_bytes += driver_->chunk(handle).size;
            // Weights are the model's constants (every copy holds them); the rest are its tensors.
            uint64_t constants = 0;
            for (const isa::TensorInfo& t : program.tensors)
                if (t.location == isa::TensorLocation::Device && t.role == isa::TensorRole::Weight) constants += t.size_bytes();
            driver::CoreMemoryUsage& on_core = usage_of(copy.device, core->core);
            on_core.constants += constants;
            on_core.tensors += driver_->chunk(handle).size - std::min(constants, driver_->chunk(handle).size);
        }
        if (placement.host_region_bytes > 0) {
            model->host_region_handle = driver_->mem_alloc(cores.front().device, placement.host_region_bytes, 0,
                                                           cores.front().core, driver::Lifespan::Process, true);
            model->handles.push_back(model->host_region_handle);
            placement.host_region = driver_->chunk(model->host_region_handle).address;
        }
        // Instruction streams: each into device memory of the core that runs it, where the engines
        // fetch it from (sim/core/instruction_fetch.h). One allocation per core holds all of its
        // streams, each from an allocation unit's boundary as if allocated alone: each allocation is a
        // driver call that updates the host's shared state (and so is each free), which cost more host
        // time than the copies with one per stream. The streams' bytes are lent to device memory
        // (sim/platform/shared_pages.h), so the code a data-parallel program writes to every core
        // takes no host memory beyond the loaded program's own (the allocation unit, 4 KiB, is a
        // multiple of the host pages' size: the pieces line up).
        const uint64_t unit = std::max<uint64_t>(1, spec_.chip.driver.min_alloc_bytes);
        auto aligned = [&](uint64_t bytes) { return (bytes + unit - 1) / unit * unit; };
        std::vector<uint64_t> code_bytes_of_core(cores.size(), 0);
        // A copy of a list holds its body: the bytes stay as they are while lent (writers copy). The
        // pages live as long as device memory holds them, the lenders at least until the copies are made.
        std::vector<std::shared_ptr<const isa::InstructionList>> lent;
        for (const isa::InstructionStream& stream : program.streams) {
            code_bytes_of_core.at(stream.core) += aligned(stream.instructions.code().size());
            if (std::any_of(lent.begin(), lent.end(), [&](const auto& l) { return l->shares_body_with(stream.instructions); }))
                continue;
            lent.push_back(std::make_shared<const isa::InstructionList>(stream.instructions));
            const std::vector<uint8_t>& code = lent.back()->code();
            sim::lend_pages(lent.back(), code.data(), code.size());
        }
        for (uint32_t c = 0; c < cores.size(); ++c) {
            if (code_bytes_of_core[c] == 0) continue;
            const auto& core = cores[c];
            const uint64_t handle = driver_->mem_alloc(core.device, code_bytes_of_core[c], core.memory_channel, core.core,
                                                       driver::Lifespan::Process);
            model->handles.push_back(handle);
            model->device_bytes += driver_->chunk(handle).size;
            usage_of(core.device, core.core).model_code += driver_->chunk(handle).size;
            const uint64_t chunk_offset = driver_->chunk(handle).address - address_map.channel(core.memory_channel);
            uint64_t at = 0;
            for (uint32_t s = 0; s < program.streams.size(); ++s) {
                if (program.streams[s].core != c) continue;
                const std::vector<uint8_t>& code = program.streams[s].instructions.code();  // the file's bytes
                if (code.empty()) continue;
                driver_->copy_to_device(handle, at, code.data(), code.size());
                model->dma_bytes += code.size();
                placement.code.push_back({s, core.device, core.memory_channel, chunk_offset + at, code.size()});
                at += aligned(code.size());
            }
        }
        // Weights and constants. Once a weight is in device memory, the loaded program lets go of its
        // host copy, as a runtime frees the model file's buffer: the weights are held once, not in
        // host memory and in device memory both (BERT-large bf16: 670 MB). The other tensors' initial
        // data stays (the inputs' is copied in at each execution).
        for (isa::TensorInfo& t : model->program.tensors) {
            if (t.data.empty()) continue;
            if (t.location == isa::TensorLocation::Device) {
                for (size_t r = 0; r < placement.device_regions.size(); ++r) {
                    const sim::core::DeviceRegion& copy = placement.device_regions[r];
                    if (!copy.home && t.role != isa::TensorRole::Weight) continue;
                    driver_->copy_to_device(model->region_handles[r], t.offset, t.data.data(), t.data.size());
                    model->dma_bytes += t.data.size();
                }
                if (t.role == isa::TensorRole::Weight) std::vector<uint8_t>().swap(t.data);
            } else {
                driver_->copy_to_device(model->host_region_handle, t.offset, t.data.data(), t.data.size());
            }
        }
    } catch (const driver::DriverError& e) {
        free_model_memory(*model);
        const NrtStatus status = e.error() == ENOMEM ? NrtStatus::Resource
                               : e.error() == ETIMEDOUT ? NrtStatus::Timeout : NrtStatus::Failure;
        return fail(status, where, e.what());
    }
    model->load_time_s = driver::host_time::now_s() - start;
    for (uint32_t g = 0; g < model->program.graph_count(); ++g)
        model->loaded.timing_cores.push_back(cores_to_simulate(model->program, placement, g));
    driver::ModelRecord record;
    record.id = model->id;
    record.name = model->name;
    for (const auto& c : cores) {
        record.cores.push_back({c.device, c.core});
        driver_->count_model_load(c.device, c.core);
    }
    record.load_time_s = model->load_time_s;
    record.device_bytes = model->device_bytes;
    record.core_memory = usage;
    record.host_bytes = placement.host_region_bytes;
    driver_->session().update([&](driver::ProcessRecord& r) { r.models.push_back(record); });
    install_on_sequencer(*model);
    *out = model.get();
    models_.push_back(std::move(model));
    return NrtStatus::Success;
}

NrtStatus Runtime::unload(Model* model) {
    const ApplicationTime::Call call(application_time_);

    auto it = std::find_if(models_.begin(), models_.end(), [&](const auto& m) { return m.get() == model; });
    if (it == models_.end()) return fail(NrtStatus::InvalidHandle, "nrt_unload", "not a loaded model");
    free_model_memory(**it);
    const uint32_t id = (*it)->id;
    driver_->session().update([&](driver::ProcessRecord& r) {
        r.models.erase(std::remove_if(r.models.begin(), r.models.end(), [&](const auto& m) { return m.id == id; }), r.models.end());
    });
    models_.erase(it);
    return NrtStatus::Success;
}

}  // namespace nsim::runtime
