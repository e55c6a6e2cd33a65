// The runtime's nrt_tensor_* calls: tensors in host or device memory, written and read by the application.
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

NrtStatus Runtime::tensor_allocate(TensorPlacement placement, int32_t vnc, uint64_t size, const std::string& name, Tensor** out) {
    const ApplicationTime::Call call(application_time_);

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
    const ApplicationTime::Call call(application_time_);

    if (!tensor || !*tensor) return;
    auto it = std::find_if(tensors_.begin(), tensors_.end(), [&](const auto& t) { return t.get() == *tensor; });
    if (it != tensors_.end()) {
        if ((*it)->handle) driver_->mem_free((*it)->handle);
        tensors_.erase(it);
    }
    *tensor = nullptr;
}

NrtStatus Runtime::tensor_write(Tensor* tensor, const void* data, uint64_t offset, uint64_t size) {
    const ApplicationTime::Call call(application_time_);

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
    const ApplicationTime::Call call(application_time_);

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
