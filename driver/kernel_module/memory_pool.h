// A gen_pool-like allocator over one address range (a device-memory channel, or the driver's host
// memory): first fit, sizes rounded up to the minimum allocation, frees coalesce.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace nsim::driver {

class MemoryPool {
public:
    MemoryPool() = default;
    MemoryPool(uint64_t base, uint64_t size, uint64_t min_alloc);

    // The address of `size` bytes aligned to `alignment` (a power of two), or nothing when no free
    // range is large enough.
    std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment);
    void free(uint64_t address);

    uint64_t base() const { return base_; }
    uint64_t total() const { return size_; }
    uint64_t occupied() const { return occupied_; }
    uint64_t available() const { return size_ - occupied_; }
    uint64_t rounded(uint64_t size) const;

private:
    uint64_t base_ = 0;
    uint64_t size_ = 0;
    uint64_t min_alloc_ = 1;
    uint64_t occupied_ = 0;
    std::map<uint64_t, uint64_t> free_;       // start -> length
    std::map<uint64_t, uint64_t> allocated_;  // start -> length
};

}  // namespace nsim::driver
