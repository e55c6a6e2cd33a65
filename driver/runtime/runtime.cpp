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

std::optional<std::string> environment(const char* name) {
    const char* value = std::getenv(name);
    if (!value) return std::nullopt;
    return std::string(value);
}

constexpr size_t kActivitySamplesKept = 64;  // per core, enough for neuron-top's window
// How long nrt_execute waits for a notification without NEURON_RT_EXEC_TIMEOUT: the runtime's
// default (driver.md 12), a software setting rather than a property of the hardware.
constexpr double kDefaultExecTimeoutS = 30;

}  // namespace

Runtime::Runtime(const config::HostSpec& spec, RuntimeOptions options) : spec_(spec), options_(std::move(options)) {
    if (!options_.visible_cores) options_.visible_cores = environment("NEURON_RT_VISIBLE_CORES");
    if (!options_.num_cores) options_.num_cores = environment("NEURON_RT_NUM_CORES");
    if (!options_.process_tag) options_.process_tag = environment("NEURON_PROCESS_TAG").value_or("");
    if (!options_.exec_timeout_s) {
        if (auto text = environment("NEURON_RT_EXEC_TIMEOUT")) {
            try {
                options_.exec_timeout_s = std::stod(*text);
            } catch (const std::exception&) {
                throw std::invalid_argument(fmt::format("NEURON_RT_EXEC_TIMEOUT='{}' is not a number of seconds", *text));
            }
        }
    }
    const auto home = options_.home.empty() ? driver::HostState::default_home() : options_.home;
    state_ = std::make_unique<driver::HostState>(home, spec_.instance.name);
    host_ = std::make_unique<driver::SimulatedHost>(spec_, driver::SimulatedHost::faults_from(*state_));
    driver_ = std::make_unique<driver::NeuronDriver>(host_->platform(), *state_);
}

Runtime::~Runtime() {
    try {
        close();
    } catch (...) {
    }
}

NrtStatus Runtime::fail(NrtStatus status, const std::string& where, const std::string& message) {
    last_error_ = fmt::format("NRT:{} {}", where, message);
    return status;
}

uint32_t Runtime::cores_per_vnc() const { return std::max<uint32_t>(1, spec_.chip.logical_neuroncore_config); }
uint32_t Runtime::vnc_per_device() const { return spec_.chip.cores_per_device / cores_per_vnc(); }
uint32_t Runtime::total_vnc_count() const { return spec_.instance.devices * vnc_per_device(); }

std::vector<driver::CoreId> Runtime::physical_cores(uint32_t vnc) const {
    std::vector<driver::CoreId> cores;
    const unsigned device = vnc / vnc_per_device();
    for (uint32_t i = 0; i < cores_per_vnc(); ++i) cores.push_back({device, (vnc % vnc_per_device()) * cores_per_vnc() + i});
    return cores;
}

NrtStatus Runtime::claim(const std::vector<uint32_t>& named, uint32_t count) {
    const std::string where = "nrt_allocate_neuron_cores";
    driver::HostState::Lock lock = state_->lock();
    const int me = driver_->session().identity().pid;
    std::map<driver::CoreId, driver::ProcessRecord> holders;
    for (const driver::ProcessRecord& p : state_->live_processes())
        if (p.pid != me)
            for (const driver::CoreId& c : p.cores) holders[c] = p;
    auto holder_of = [&](uint32_t vnc) -> const driver::ProcessRecord* {
        for (const driver::CoreId& c : physical_cores(vnc)) {
            auto it = holders.find(c);
            if (it != holders.end()) return &it->second;
        }
        return nullptr;
    };
    std::vector<uint32_t> wanted = named;
    if (wanted.empty() && count == 0)
        for (uint32_t v = 0; v < total_vnc_count(); ++v) wanted.push_back(v);
    if (!wanted.empty()) {
        uint32_t available = 0;
        const driver::ProcessRecord* holder = nullptr;
        uint32_t held = 0;
        for (uint32_t v : wanted) {
            if (const auto* h = holder_of(v)) {
                if (!holder) holder = h, held = v;
            } else {
                ++available;
            }
        }
        if (holder)
            return fail(NrtStatus::Resource, where,
                        fmt::format("NeuronCore(s) not available - Requested:{} Available:{} (nc{} is in use by PID {}: {})",
                                    describe_cores(wanted), available, held, holder->pid, holder->command));
    } else {
        for (uint32_t v = 0; v < total_vnc_count() && wanted.size() < count; ++v)
            if (!holder_of(v)) wanted.push_back(v);
        if (wanted.size() < count)
            return fail(NrtStatus::Resource, where,
                        fmt::format("NeuronCore(s) not available - Requested:{} NeuronCores Available:{}", count, wanted.size()));
    }
    driver_->session().update([&](driver::ProcessRecord& r) {
        for (uint32_t v : wanted)
            for (const driver::CoreId& c : physical_cores(v)) r.cores.push_back(c);
    });
    claimed_ = wanted;
    return NrtStatus::Success;
}

void Runtime::release_claim() {
    driver_->session().update([&](driver::ProcessRecord& r) { r.cores.clear(); });
    claimed_.clear();
}

NrtStatus Runtime::init() {
    const std::string where = "nrt_init";
    if (initialized_) return NrtStatus::Success;
    try {
        driver_->attach();
    } catch (const driver::DriverError& e) {
        if (e.error() == ENODEV && !driver_->loaded())
            return fail(NrtStatus::Failure, where,
                        fmt::format("Unable to determine Neuron Driver version. Please check aws-neuron-dkms package is "
                                    "installed. (the simulated host's neuron module is not loaded; {})", driver::load_advice(spec_.instance.name)));
        return fail(NrtStatus::Failure, where, e.what());
    }
    CoreRequest request;
    try {
        request = parse_core_request(options_.visible_cores, options_.num_cores, total_vnc_count());
    } catch (const std::invalid_argument& e) {
        return fail(NrtStatus::Invalid, where, e.what());
    }
    if (const NrtStatus status = claim(request.visible, request.count); status != NrtStatus::Success) return status;

    std::map<unsigned, uint32_t> core_maps;  // device -> physical core bitmap
    for (uint32_t v : claimed_)
        for (const driver::CoreId& c : physical_cores(v)) core_maps[c.device] |= 1u << c.core;
    for (const auto& [device, map] : core_maps) {
        try {
            driver_->open(device);
            open_devices_.push_back(device);
        } catch (const driver::DriverError& e) {
            close();
            closed_ = false;
            return fail(NrtStatus::Failure, where,
                        fmt::format("Failed to initialize devices: {} ({})", e.what(), driver::reload_advice(spec_.instance.name)));
        }
    }
    if (options_.reset_cores) {
        for (const auto& [device, map] : core_maps) {
            std::string message;
            if (!driver_->reset_cores(device, map, &message)) {
                close();
                closed_ = false;
                return fail(NrtStatus::Failure, where, fmt::format("Failed to reset NeuronCores: {}", message));
            }
        }
    }
    // The runtime reports its version through each device's firmware; a failure costs nothing but the metric.
    for (unsigned device : open_devices_) driver_->post_metric(device, fmt::format("nrt_init pid={}", driver_->session().identity().pid));
    initialized_ = true;
    closed_ = false;
    return NrtStatus::Success;
}

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

void Runtime::close() {
    for (auto& model : models_) free_model_memory(*model);
    models_.clear();
    for (auto& tensor : tensors_)
        if (tensor->handle) {
            try {
                driver_->mem_free(tensor->handle);
            } catch (const driver::DriverError&) {
            }
        }
    tensors_.clear();
    for (unsigned device : open_devices_) driver_->close(device);
    open_devices_.clear();
    if (!claimed_.empty()) release_claim();
    driver_->session().update([](driver::ProcessRecord& r) { r.models.clear(); });
    if (initialized_) closed_ = true;
    initialized_ = false;
}

NrtStatus Runtime::check_usable(const std::string& where) {
    if (!initialized_) return fail(closed_ ? NrtStatus::Closed : NrtStatus::Uninitialized, where,
                                   closed_ ? "the runtime has been closed" : "nrt_init has not been called");
    for (unsigned device : open_devices_)
        if (driver_->device_state(device) != driver::DeviceState::Ready)
            return fail(NrtStatus::HwError, where,
                        fmt::format("{} ({})", driver::invalid_state_error(device).what(), driver::reload_advice(spec_.instance.name)));
    return NrtStatus::Success;
}

NrtStatus Runtime::load(const std::vector<uint8_t>& neff, int32_t vnc, Model** out) {
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
    model->vnc = first;
    model->id = next_model_id_++;
    model->name = program.metadata_value("model").empty() ? fmt::format("model{}", model->id) : program.metadata_value("model");
    model->loaded.program = &model->program;
    model->flops_per_core = matmul_flops_per_core(model->program);

    sim::core::ProgramPlacement& placement = model->loaded.placement;
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
        placement.device_regions = sim::core::region_copies(placement.cores);
        for (sim::core::DeviceRegion& copy : placement.device_regions) {
            const auto core = std::find_if(cores.begin(), cores.end(), [&](const auto& c) {
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

driver::ActivityPublisher& Runtime::activity() {
    if (!activity_)
        activity_ = std::make_unique<driver::ActivityPublisher>(*state_, driver_->session().identity().pid,
                                                                kActivitySamplesKept, options_.process_tag.value_or(""));
    return *activity_;
}

void Runtime::record_activity(const Model& model, const ExecutionResult& result, double total_latency_s) {
    std::vector<driver::ActivityPublisher::CoreBusy> cores;
    const auto& placed = model.loaded.placement.cores;
    for (size_t i = 0; i < placed.size(); ++i)
        cores.push_back({{placed[i].device, placed[i].core},
                         i < result.core_busy_s.size() ? result.core_busy_s[i] : result.device_seconds,
                         i < model.flops_per_core.size() ? model.flops_per_core[i] : 0.0});
    activity().count_execution(driver::ActivityPublisher::Outcome::Completed, total_latency_s, result.device_seconds);
    activity().publish(driver::host_time::now_s(), result.device_seconds, cores);
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
    const std::string where = "nrt_execute";
    const HostTrace trace(std::exchange(trace_next_, nullptr));
    if (const NrtStatus s = check_usable(where); s != NrtStatus::Success) return s;
    const double start = driver::host_time::now_s();
    const uint64_t start_ps = HostTrace::now_ps();
    if (std::none_of(models_.begin(), models_.end(), [&](const auto& m) { return m.get() == model; }))
        return fail(NrtStatus::InvalidHandle, where, "not a loaded model");
    model->request = ExecutionRequest{};
    if (trace) {
        model->request.trace = trace.writer();
        model->request.trace->set_origin(start_ps);
        trace.slice(HostTrack::Application, "nrt_load " + model->name, model->load_started_ps,
                    model->load_started_ps + uint64_t(std::llround(model->load_time_s * 1e12)),
                    sim::core::JsonArgs().integer("pcie_bytes", model->dma_bytes));
    }
    for (const isa::TensorInfo& info : model->program.tensors) {
        if (info.role != isa::TensorRole::Input) continue;
        auto it = inputs.tensors.find(info.name);
        if (it == inputs.tensors.end() || !it->second)
            return fail(NrtStatus::ExecBadInput, where, fmt::format("input tensor '{}' is missing", info.name));
        if (it->second->size < info.size_bytes())
            return fail(NrtStatus::ExecBadInput, where, fmt::format("input tensor '{}' has {} bytes, the model needs {}",
                                                                    info.name, it->second->size, info.size_bytes()));
        const uint64_t copy_start = HostTrace::now_ps();
        if (const NrtStatus s = move_tensor(*model, info, *it->second, true); s != NrtStatus::Success) return s;
        trace.slice_until_now(HostTrack::ToDevice, "input " + info.name, copy_start,
                              sim::core::JsonArgs().text("tensor", info.name).integer("bytes", info.size_bytes()));
    }
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
        for (const isa::TensorInfo& info : model->program.tensors) {
            if (info.role != isa::TensorRole::Output) continue;
            auto it = outputs->tensors.find(info.name);
            if (it == outputs->tensors.end() || !it->second) continue;
            const uint64_t copy_start = HostTrace::now_ps();
            if (const NrtStatus s = move_tensor(*model, info, *it->second, false); s != NrtStatus::Success) return s;
            trace.slice_until_now(HostTrack::FromDevice, "output " + info.name, copy_start,
                                  sim::core::JsonArgs().text("tensor", info.name).integer("bytes", info.size_bytes()));
        }
    trace.slice_until_now(HostTrack::Runtime, "nrt_execute " + model->name, start_ps);
    for (const auto& c : model->loaded.placement.cores) driver_->count_inferences(c.device, c.core, 1);
    record_activity(*model, result, driver::host_time::now_s() - start);
    return NrtStatus::Success;
}

NrtStatus Runtime::tensor_allocate(TensorPlacement placement, int32_t vnc, uint64_t size, const std::string& name, Tensor** out) {
    const std::string where = "nrt_tensor_allocate";
    if (const NrtStatus s = check_usable(where); s != NrtStatus::Success) return s;
    auto tensor = std::make_unique<Tensor>();
    tensor->name = name;
    tensor->placement = placement;
    tensor->size = size;
    if (placement == TensorPlacement::Device) {
        const uint32_t core = vnc < 0 ? claimed_.front() : uint32_t(vnc);
        if (std::find(claimed_.begin(), claimed_.end(), core) == claimed_.end())
            return fail(NrtStatus::Invalid, where, fmt::format("Could not find VNC id {} (this process holds {})", core,
                                                               describe_cores(claimed_)));
        tensor->vnc = core;
        const driver::CoreId physical = physical_cores(core).front();
        try {
            tensor->handle = driver_->mem_alloc(physical.device, std::max<uint64_t>(1, size),
                                                driver_->channel_of_core(physical.core), physical.core, driver::Lifespan::Process);
        } catch (const driver::DriverError& e) {
            return fail(NrtStatus::Resource, where, e.what());
        }
    } else {
        tensor->host.assign(size, 0);
    }
    *out = tensor.get();
    tensors_.push_back(std::move(tensor));
    return NrtStatus::Success;
}

void Runtime::tensor_free(Tensor** tensor) {
    if (!tensor || !*tensor) return;
    auto it = std::find_if(tensors_.begin(), tensors_.end(), [&](const auto& t) { return t.get() == *tensor; });
    if (it != tensors_.end()) {
        if ((*it)->handle) driver_->mem_free((*it)->handle);
        tensors_.erase(it);
    }
    *tensor = nullptr;
}

NrtStatus Runtime::tensor_write(Tensor* tensor, const void* data, uint64_t offset, uint64_t size) {
    const std::string where = "nrt_tensor_write";
    if (!tensor) return fail(NrtStatus::InvalidHandle, where, "no tensor");
    if (offset > tensor->size || size > tensor->size - offset)
        return fail(NrtStatus::Invalid, where, fmt::format("{} bytes at offset {} do not fit tensor '{}' ({} bytes)", size,
                                                           offset, tensor->name, tensor->size));
    if (tensor->placement != TensorPlacement::Device) {
        std::copy_n(static_cast<const uint8_t*>(data), size, tensor->host.begin() + offset);
        return NrtStatus::Success;
    }
    if (const NrtStatus s = check_usable(where); s != NrtStatus::Success) return s;
    try {
        driver_->copy_to_device(tensor->handle, offset, data, size);
    } catch (const driver::DriverError& e) {
        return fail(e.error() == ETIMEDOUT ? NrtStatus::Timeout : NrtStatus::Failure, where, e.what());
    }
    return NrtStatus::Success;
}

NrtStatus Runtime::tensor_read(const Tensor* tensor, void* data, uint64_t offset, uint64_t size) {
    const std::string where = "nrt_tensor_read";
    if (!tensor) return fail(NrtStatus::InvalidHandle, where, "no tensor");
    if (offset > tensor->size || size > tensor->size - offset)
        return fail(NrtStatus::Invalid, where, fmt::format("{} bytes at offset {} do not fit tensor '{}' ({} bytes)", size,
                                                           offset, tensor->name, tensor->size));
    if (tensor->placement != TensorPlacement::Device) {
        std::copy_n(tensor->host.begin() + offset, size, static_cast<uint8_t*>(data));
        return NrtStatus::Success;
    }
    if (const NrtStatus s = check_usable(where); s != NrtStatus::Success) return s;
    try {
        driver_->copy_from_device(tensor->handle, offset, data, size);
    } catch (const driver::DriverError& e) {
        return fail(e.error() == ETIMEDOUT ? NrtStatus::Timeout : NrtStatus::Failure, where, e.what());
    }
    return NrtStatus::Success;
}

}  // namespace nsim::runtime
