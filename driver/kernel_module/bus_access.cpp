#include "bus_access.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "host_time.h"

namespace nsim::driver {

uint32_t MappedBar::read32(uint64_t offset) const {
    if (offset + 4 > size_) throw std::out_of_range(fmt::format("BAR{} read at {:#x} past its end", index_, offset));
    uint32_t value = 0;
    host_time::advance(platform_->host_read(address_ + offset, &value, 4));
    return value;
}

void MappedBar::write32(uint64_t offset, uint32_t value) const {
    if (offset + 4 > size_) throw std::out_of_range(fmt::format("BAR{} write at {:#x} past its end", index_, offset));
    platform_->host_write(address_ + offset, &value, 4);
}

// CPU accesses to its own memory are not timed by the platform; chunks keep each TLM payload small.
namespace {
constexpr uint64_t kChunk = uint64_t(1) << 20;
}

void HostMemory::write(uint64_t address, const void* data, uint64_t length) const {
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (uint64_t done = 0; done < length;) {
        const uint32_t n = uint32_t(std::min(kChunk, length - done));
        platform_.host_write(address + done, bytes + done, n);
        done += n;
    }
}

void HostMemory::read(uint64_t address, void* data, uint64_t length) const {
    auto* bytes = static_cast<uint8_t*>(data);
    for (uint64_t done = 0; done < length;) {
        const uint32_t n = uint32_t(std::min(kChunk, length - done));
        platform_.host_read(address + done, bytes + done, n);
        done += n;
    }
}

}  // namespace nsim::driver
