#include "isa/access_pattern_pool.h"

#include <mutex>
#include <stdexcept>
#include <vector>

namespace nsim::isa {
namespace pattern_pool_detail {
std::atomic<AccessPattern*> chunks[kMaxChunks];
}  // namespace pattern_pool_detail

namespace {

using namespace pattern_pool_detail;

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

// Field by field: the struct has padding bytes, which hold nothing.
uint64_t hash_of(const AccessPattern& p) {
    uint64_t h = mix(0, uint64_t(p.space) | uint64_t(p.dtype) << 8 | uint64_t(p.dim_count) << 16 | uint64_t(p.tensor) << 32);
    h = mix(h, uint64_t(p.partition_start) | uint64_t(p.partition_count) << 32);
    h = mix(h, uint64_t(uint32_t(p.partition_stride)));
    h = mix(h, p.offset);
    for (const Dim& d : p.dims) h = mix(h, uint64_t(uint32_t(d.stride)) | uint64_t(d.count) << 32);
    return h ^ (h >> 31);
}

class Pool {
public:
    uint32_t intern(const AccessPattern& pattern) {
        if (pattern == kAbsent) return kAbsentPattern;
        const uint64_t hash = hash_of(pattern);
        const std::lock_guard<std::mutex> guard(lock_);
        if ((interned_ + 1) * 2 > slots_.size()) grow();
        size_t slot = hash & (slots_.size() - 1);
        for (; slots_[slot] != kAbsentPattern; slot = (slot + 1) & (slots_.size() - 1))
            if (pattern_of(slots_[slot]) == pattern) return slots_[slot];
        const uint32_t id = append(pattern);
        slots_[slot] = id;
        ++interned_;
        return id;
    }

    uint32_t copy(uint32_t id) {
        const AccessPattern pattern = pattern_of(id);
        const std::lock_guard<std::mutex> guard(lock_);
        return append(pattern);
    }

    uint64_t count() {
        const std::lock_guard<std::mutex> guard(lock_);
        return stored_;
    }

private:
    // Under the lock.
    uint32_t append(const AccessPattern& pattern) {
        const uint64_t index = stored_;
        const uint64_t chunk = index >> kChunkBits;
        if (chunk >= kMaxChunks) throw std::length_error("more than 2^30 distinct access patterns");
        AccessPattern* storage = chunks[chunk].load(std::memory_order_relaxed);
        if (!storage) {
            storage = new AccessPattern[size_t(1) << kChunkBits];
            chunks[chunk].store(storage, std::memory_order_release);
        }
        storage[index & kChunkMask] = pattern;
        ++stored_;
        return uint32_t(index + 1);
    }

    // Under the lock: twice the slots, every interned id placed again.
    void grow() {
        std::vector<uint32_t> old = std::move(slots_);
        slots_.assign(old.empty() ? 1024 : old.size() * 2, kAbsentPattern);
        for (const uint32_t id : old) {
            if (id == kAbsentPattern) continue;
            size_t slot = hash_of(pattern_of(id)) & (slots_.size() - 1);
            while (slots_[slot] != kAbsentPattern) slot = (slot + 1) & (slots_.size() - 1);
            slots_[slot] = id;
        }
    }

    std::mutex lock_;
    std::vector<uint32_t> slots_;  // open addressing, linear probing; kAbsentPattern = empty
    uint64_t interned_ = 0, stored_ = 0;
};

Pool& pool() {
    static Pool instance;
    return instance;
}

}  // namespace

uint32_t intern_pattern(const AccessPattern& pattern) { return pool().intern(pattern); }
uint32_t editable_copy(uint32_t id) { return pool().copy(id); }
uint64_t pooled_pattern_count() { return pool().count(); }

}  // namespace nsim::isa
