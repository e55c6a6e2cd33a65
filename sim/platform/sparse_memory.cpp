#include "platform/sparse_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nsim::sim {

SparseMemory::SparseMemory(uint64_t size_bytes) : size_(size_bytes) {}

static void check_range(const SparseMemory& memory, uint64_t address, uint64_t length) {
    if (!memory.contains(address, length))
        throw std::out_of_range("access of " + std::to_string(length) + " bytes at " +
                                std::to_string(address) + " outside memory of " +
                                std::to_string(memory.size()) + " bytes");
}

void SparseMemory::read(uint64_t address, uint8_t* destination, uint64_t length) const {
    check_range(*this, address, length);
    while (length > 0) {
        const uint64_t page = address / kPageBytes;
        const uint64_t offset = address % kPageBytes;
        const uint64_t chunk = std::min(length, kPageBytes - offset);
        auto it = pages_.find(page);
        if (it == pages_.end())
            std::memset(destination, 0, chunk);
        else
            std::memcpy(destination, it->second.get() + offset, chunk);
        address += chunk;
        destination += chunk;
        length -= chunk;
    }
}

void SparseMemory::write(uint64_t address, const uint8_t* source, uint64_t length) {
    check_range(*this, address, length);
    while (length > 0) {
        const uint64_t page = address / kPageBytes;
        const uint64_t offset = address % kPageBytes;
        const uint64_t chunk = std::min(length, kPageBytes - offset);
        auto& storage = pages_[page];
        if (!storage) storage = std::make_unique<uint8_t[]>(kPageBytes);  // value-initialised: zero
        std::memcpy(storage.get() + offset, source, chunk);
        address += chunk;
        source += chunk;
        length -= chunk;
    }
}

}  // namespace nsim::sim
