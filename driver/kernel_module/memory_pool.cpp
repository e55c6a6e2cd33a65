#include "memory_pool.h"

#include <stdexcept>

namespace nsim::driver {

MemoryPool::MemoryPool(uint64_t base, uint64_t size, uint64_t min_alloc)
    : base_(base), size_(size), min_alloc_(min_alloc ? min_alloc : 1) {
    if (size > 0) free_[base] = size;
}

uint64_t MemoryPool::rounded(uint64_t size) const {
    const uint64_t units = (size + min_alloc_ - 1) / min_alloc_;
    return (units ? units : 1) * min_alloc_;
}

std::optional<uint64_t> MemoryPool::allocate(uint64_t size, uint64_t alignment) {
    const uint64_t length = rounded(size);
    const uint64_t align = alignment > min_alloc_ ? alignment : min_alloc_;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        const uint64_t start = it->first, end = it->first + it->second;
        const uint64_t aligned = (start + align - 1) & ~(align - 1);
        if (aligned < start || aligned + length > end) continue;
        free_.erase(it);
        if (aligned > start) free_[start] = aligned - start;
        if (aligned + length < end) free_[aligned + length] = end - (aligned + length);
        allocated_[aligned] = length;
        occupied_ += length;
        return aligned;
    }
    return std::nullopt;
}

void MemoryPool::free(uint64_t address) {
    auto it = allocated_.find(address);
    if (it == allocated_.end()) throw std::invalid_argument("free of an address the pool did not hand out");
    uint64_t start = address, length = it->second;
    occupied_ -= length;
    allocated_.erase(it);
    auto next = free_.lower_bound(start);
    if (next != free_.end() && start + length == next->first) {
        length += next->second;
        next = free_.erase(next);
    }
    if (next != free_.begin()) {
        auto previous = std::prev(next);
        if (previous->first + previous->second == start) {
            previous->second += length;
            return;
        }
    }
    free_[start] = length;
}

}  // namespace nsim::driver
