// How the driver touches hardware: MMIO to a mapped BAR (each read is a non-posted PCIe round trip,
// so it advances simulated time; writes are posted) and CPU loads/stores of host physical memory.
#pragma once

#include <cstdint>

#include "platform/platform.h"

namespace nsim::driver {

class MappedBar {
public:
    MappedBar() = default;
    MappedBar(sim::Platform& platform, uint32_t index, uint64_t address, uint64_t size)
        : platform_(&platform), index_(index), address_(address), size_(size) {}

    uint32_t read32(uint64_t offset) const;
    void write32(uint64_t offset, uint32_t value) const;

    uint32_t index() const { return index_; }
    uint64_t address() const { return address_; }
    uint64_t size() const { return size_; }

private:
    sim::Platform* platform_ = nullptr;
    uint32_t index_ = 0;
    uint64_t address_ = 0;
    uint64_t size_ = 0;
};

class HostMemory {
public:
    explicit HostMemory(sim::Platform& platform) : platform_(platform) {}
    void write(uint64_t address, const void* data, uint64_t length) const;
    void read(uint64_t address, void* data, uint64_t length) const;
    void write32(uint64_t address, uint32_t value) const { write(address, &value, 4); }
    uint32_t read32(uint64_t address) const {
        uint32_t value = 0;
        read(address, &value, 4);
        return value;
    }
    uint64_t size() const { return platform_.spec().instance.host_memory_bytes; }

private:
    sim::Platform& platform_;
};

}  // namespace nsim::driver
