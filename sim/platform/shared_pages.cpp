#include "platform/shared_pages.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace nsim::sim {
namespace {


// A fingerprint of a page's bytes: it selects candidates, the bytes themselves decide. 64 lanes of
// 32 bits, each taking every 64th word through a multiply, so that the lanes are eight vectors of
// independent work (the load hashes every page of code it writes: tens of MB); then folded into 64
// bits. Built for AVX2 hosts and for any x86-64; both compute the same value.
typedef uint32_t WordLanes __attribute__((vector_size(32)));

__attribute__((target_clones("avx2", "default"))) uint64_t fingerprint(const uint8_t* page) {
    constexpr size_t kVectors = 8, kBlock = kVectors * sizeof(WordLanes);
    WordLanes lanes[kVectors];
    for (size_t v = 0; v < kVectors; ++v)
        for (size_t l = 0; l < sizeof(WordLanes) / 4; ++l) lanes[v][l] = uint32_t(v * 8 + l + 1);
    for (uint64_t at = 0; at < SparseMemory::kPageBytes; at += kBlock) {
#pragma GCC unroll 8
        for (size_t v = 0; v < kVectors; ++v) {
            WordLanes words;
            std::memcpy(&words, page + at + v * sizeof(WordLanes), sizeof words);
            lanes[v] = (lanes[v] ^ words) * 0x9E3779B1u;
        }
    }
    WordLanes folded = lanes[0];
    for (size_t v = 1; v < kVectors; ++v) folded = (folded ^ lanes[v]) * 0x85EBCA77u;
    uint64_t h = 0;
    for (size_t l = 0; l < sizeof(WordLanes) / 4; ++l) h = (h ^ folded[l]) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

// Held weakly: a page lives while some memory (or its lender) holds it. Memories of several
// simulated hosts may live in one process (tests), possibly on several threads, hence the lock.
class SharedPages {
public:
    std::shared_ptr<uint8_t[]> find_or_add(const uint8_t* bytes) {
        const uint64_t key = fingerprint(bytes);
        const std::lock_guard<std::mutex> guard(lock_);
        std::weak_ptr<uint8_t[]>& slot = pages_[key];
        if (auto known = slot.lock(); known && std::memcmp(known.get(), bytes, SparseMemory::kPageBytes) == 0) return known;
        std::shared_ptr<uint8_t[]> page(new uint8_t[SparseMemory::kPageBytes]);
        std::memcpy(page.get(), bytes, SparseMemory::kPageBytes);
        remember(slot, page);
        return page;
    }

    void lend(const std::shared_ptr<uint8_t[]>& page) {
        const uint64_t key = fingerprint(page.get());
        const std::lock_guard<std::mutex> guard(lock_);
        std::weak_ptr<uint8_t[]>& slot = pages_[key];
        if (auto known = slot.lock(); known && std::memcmp(known.get(), page.get(), SparseMemory::kPageBytes) == 0) return;
        remember(slot, page);
    }

private:
    // A different page of the same fingerprint is no longer found: it is only shared less.
    void remember(std::weak_ptr<uint8_t[]>& slot, const std::shared_ptr<uint8_t[]>& page) {
        slot = page;
        if (++added_ < pages_.size() / 2 + 1024) return;
        // Forgets the pages nothing holds any more, every so many additions (so it costs no more than they do).
        added_ = 0;
        for (auto it = pages_.begin(); it != pages_.end();) it = it->second.expired() ? pages_.erase(it) : std::next(it);
    }

    std::mutex lock_;
    std::unordered_map<uint64_t, std::weak_ptr<uint8_t[]>> pages_;
    size_t added_ = 0;
};

SharedPages& pool() {
    static SharedPages pages;
    return pages;
}

}  // namespace

std::shared_ptr<uint8_t[]> shared_page_with(const uint8_t* bytes) { return pool().find_or_add(bytes); }

void lend_pages(const std::shared_ptr<const void>& owner, const uint8_t* data, uint64_t size) {
    // Never written through: a memory marks a page from the pool shared and copies it before a write.
    auto* bytes = const_cast<uint8_t*>(data);
    for (uint64_t at = 0; at + SparseMemory::kPageBytes <= size; at += SparseMemory::kPageBytes) pool().lend(std::shared_ptr<uint8_t[]>(owner, bytes + at));
}

}  // namespace nsim::sim
