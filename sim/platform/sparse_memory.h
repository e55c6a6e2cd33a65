// Byte storage for simulated memories that can be far larger than the host's RAM (a trn2.48xlarge
// has 1.5 TiB of HBM): pages are allocated on first write and unwritten bytes read as zero.
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
    // Bytes of host memory actually backing the simulated memory.
    uint64_t resident_bytes() const { return pages_.size() * kPageBytes; }

private:
    // Host-side allocation granularity; not a property of the simulated hardware.
    static constexpr uint64_t kPageBytes = uint64_t(1) << 16;

    uint64_t size_;
    std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace nsim::sim
