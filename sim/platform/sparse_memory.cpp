#include "platform/sparse_memory.h"

#include "platform/shared_pages.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nsim::sim {
namespace {

constexpr uint64_t kPage = SparseMemory::kPageBytes;

bool all_zero(const uint8_t* bytes, uint64_t length) {
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
bool for_each_page_piece(uint64_t address, uint64_t length, Piece&& piece) {
    for (uint64_t done = 0; done < length;) {
        const uint64_t at = address + done;
        const uint64_t chunk = std::min(length - done, kPage - at % kPage);
        if (!piece(at / kPage, at % kPage, chunk, done)) return false;
        done += chunk;
    }
    return true;
}

void check_range(const SparseMemory& memory, uint64_t address, uint64_t length) {
    if (!memory.contains(address, length))
        throw std::out_of_range("access of " + std::to_string(length) + " bytes at " +
                                std::to_string(address) + " outside memory of " +
                                std::to_string(memory.size()) + " bytes");
}

}  // namespace

SparseMemory::SparseMemory(uint64_t size_bytes) : size_(size_bytes) {}

void SparseMemory::read(uint64_t address, uint8_t* destination, uint64_t length) const {
    check_range(*this, address, length);
    for_each_page_piece(address, length, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        auto it = pages_.find(page);
        if (it == pages_.end()) std::memset(destination + done, 0, chunk);
        else std::memcpy(destination + done, it->second.bytes.get() + offset, chunk);
        return true;
    });
}

bool SparseMemory::holds(uint64_t address, const uint8_t* expected, uint64_t length) const {
    check_range(*this, address, length);
    return for_each_page_piece(address, length, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        auto it = pages_.find(page);
        if (it == pages_.end()) return all_zero(expected + done, chunk);
        // A page lent by the caller's own bytes (shared_pages.h: the loaded code) holds them without comparing.
        const uint8_t* held = it->second.bytes.get() + offset;
        return held == expected + done || std::memcmp(held, expected + done, chunk) == 0;
    });
}

uint64_t SparseMemory::pages_shared() const {
    uint64_t shared = 0;
    for (const auto& [index, page] : pages_) shared += page.bytes.use_count() > 1;
    return shared;
}

uint8_t* SparseMemory::writable(Page& page) {
    if (page.shared) {
        std::shared_ptr<uint8_t[]> own(new uint8_t[kPage]);
        std::memcpy(own.get(), page.bytes.get(), kPage);
        page = Page{std::move(own), false};
    }
    return page.bytes.get();
}

void SparseMemory::write(uint64_t address, const uint8_t* source, uint64_t length) {
    check_range(*this, address, length);
    for_each_page_piece(address, length, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        auto it = pages_.find(page);
        if (it == pages_.end()) {
            // An absent page reads as zeros, so zeros written to one need no page: timing-only runs move
            // zero-filled inputs and outputs into every device's copy (BERT-large on trn1.32xlarge: GiBs).
            if (all_zero(source + done, chunk)) return true;
            if (chunk == kPage) {
                pages_.emplace(page, Page{shared_page_with(source + done), true});
                return true;
            }
            std::shared_ptr<uint8_t[]> fresh(new uint8_t[kPage]());  // zeros around the piece
            it = pages_.emplace(page, Page{std::move(fresh), false}).first;
        }
        std::memcpy(writable(it->second) + offset, source + done, chunk);
        return true;
    });
}

}  // namespace nsim::sim
