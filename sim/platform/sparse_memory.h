// A large simulated memory (device DRAM, host memory, SBUF, PSUM) backed by host memory only where
// something was written.
//
// Pages of identical contents are shared (copy on write), within one memory and between memories:
// the runtime's load writes the same code to every core of a data-parallel program (BERT-large on
// 32 cores: 528 MB of code, 32 times the same 16 MB) and the same weights to every device's copy.
// A page written whole while absent is looked up by its contents among the live pages of the
// process and, when one holds the same bytes, shares it; a write to a shared page first gives this
// memory its own copy. Nothing about the simulated machine changes: only how much host memory its
// contents take.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace nsim::sim {

class SparseMemory {
public:
    explicit SparseMemory(uint64_t size_bytes);

    uint64_t size() const { return size_; }
    bool contains(uint64_t address, uint64_t length) const {
        return length <= size_ && address <= size_ - length;
    }
    // Out-of-range accesses throw std::out_of_range; callers turn that into a bus error.
    void read(uint64_t address, uint8_t* destination, uint64_t length) const;
    void write(uint64_t address, const uint8_t* source, uint64_t length);
    // Whether [address, address + length) holds exactly `expected`, without copying it out.
    bool holds(uint64_t address, const uint8_t* expected, uint64_t length) const;
    // Bytes of host memory backing the simulated memory, a page shared with others counted in each.
    uint64_t resident_bytes() const { return pages_.size() * kPageBytes; }
    // Pages this memory holds together with another memory or another place in itself.
    uint64_t pages_shared() const;

    // Host-side allocation granularity; not a property of the simulated hardware. The driver's
    // allocations are aligned to 4 KiB, so pages of one size line up between copies of the same bytes.
    static constexpr uint64_t kPageBytes = uint64_t(1) << 12;

private:
    struct Page {
        std::shared_ptr<uint8_t[]> bytes;
        bool shared = false;  // known to the pool of shared pages: never written in place
    };
    uint8_t* writable(Page& page);

    uint64_t size_;
    std::unordered_map<uint64_t, Page> pages_;
};

}  // namespace nsim::sim
