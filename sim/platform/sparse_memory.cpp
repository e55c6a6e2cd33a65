#include "platform/sparse_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nsim::sim {

SparseMemory::SparseMemory(uint64_t size_bytes) : size_(size_bytes) {}

static bool all_zero(const uint8_t* bytes, uint64_t length) {
    uint64_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        std::memcpy(&word, bytes + i, 8);
        if (word) return false;
    }
    for (; i < length; ++i)
        if (bytes[i]) return false;
    return true;
}

// Calls piece(page, offset in the page, bytes, bytes done before) for each page's part of
// [address, address + length), in order; stops early when piece returns false.
template <class Piece>
static bool for_each_page_piece(uint64_t address, uint64_t length, uint64_t page_bytes, Piece&& piece) {
    for (uint64_t done = 0; done < length;) {
        const uint64_t at = address + done;
        const uint64_t chunk = std::min(length - done, page_bytes - at % page_bytes);
        if (!piece(at / page_bytes, at % page_bytes, chunk, done)) return false;
        done += chunk;
    }
    return true;
}

static void check_range(const SparseMemory& memory, uint64_t address, uint64_t length) {
    if (!memory.contains(address, length))
        throw std::out_of_range("access of " + std::to_string(length) + " bytes at " +
                                std::to_string(address) + " outside memory of " +
                                std::to_string(memory.size()) + " bytes");
}

void SparseMemory::read(uint64_t address, uint8_t* destination, uint64_t length) const {
    check_range(*this, address, length);
    for_each_page_piece(address, length, kPageBytes, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        auto it = pages_.find(page);
        if (it == pages_.end()) std::memset(destination + done, 0, chunk);
        else std::memcpy(destination + done, it->second.get() + offset, chunk);
        return true;
    });
}

bool SparseMemory::holds(uint64_t address, const uint8_t* expected, uint64_t length) const {
    check_range(*this, address, length);
    return for_each_page_piece(address, length, kPageBytes, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        auto it = pages_.find(page);
        return it == pages_.end() ? all_zero(expected + done, chunk)
                                  : std::memcmp(it->second.get() + offset, expected + done, chunk) == 0;
    });
}

void SparseMemory::write(uint64_t address, const uint8_t* source, uint64_t length) {
    check_range(*this, address, length);
    for_each_page_piece(address, length, kPageBytes, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        // An absent page reads as zeros, so zeros written to one need no page: timing-only runs move
        // zero-filled inputs and outputs into every device's copy (BERT-large on trn1.32xlarge: GiBs).
        auto it = pages_.find(page);
        if (it == pages_.end()) {
            if (all_zero(source + done, chunk)) return true;
            // A page the write fills whole needs no zeros first (the load's code and weights: most pages).
            it = pages_.emplace(page, chunk == kPageBytes ? std::unique_ptr<uint8_t[]>(new uint8_t[kPageBytes])
                                                          : std::make_unique<uint8_t[]>(kPageBytes))  // zeros
                     .first;
        }
        std::memcpy(it->second.get() + offset, source + done, chunk);
        return true;
    });
}

}  // namespace nsim::sim
