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
    const ApplicationTime::Call call(application_time_);

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

void Runtime::close() {
    const ApplicationTime::Call call(application_time_);

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

}  // namespace nsim::runtime
