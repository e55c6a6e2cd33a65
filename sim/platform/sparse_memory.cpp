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

SparseMemory::SparseMemory(uint64_t size_bytes)
    : size_(size_bytes),
      directory_(static_cast<Chunk**>(std::calloc(chunk_count(), sizeof(Chunk*)))) {
    if (!directory_) throw std::bad_alloc();
}

SparseMemory::~SparseMemory() {
    for (uint64_t c = 0, n = chunk_count(); c < n; ++c) delete directory_[c];
}

SparseMemory::Page& SparseMemory::entry(uint64_t page) {
    Chunk*& chunk = directory_[page / kChunkPages];
    if (!chunk) chunk = new Chunk();
    return chunk->pages[page % kChunkPages];
}

void SparseMemory::read(uint64_t address, uint8_t* destination, uint64_t length) const {
    check_range(*this, address, length);
    for_each_page_piece(address, length, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        const Page* found = find(page);
        if (!found) std::memset(destination + done, 0, chunk);
        else std::memcpy(destination + done, found->bytes.get() + offset, chunk);
        return true;
    });
}

bool SparseMemory::holds(uint64_t address, const uint8_t* expected, uint64_t length) const {
    check_range(*this, address, length);
    return for_each_page_piece(address, length, [&](uint64_t page, uint64_t offset, uint64_t chunk, uint64_t done) {
        const Page* found = find(page);
        if (!found) return all_zero(expected + done, chunk);
        // A page lent by the caller's own bytes (shared_pages.h: the loaded code) holds them without comparing.
        const uint8_t* held = found->bytes.get() + offset;
        return held == expected + done || std::memcmp(held, expected + done, chunk) == 0;
    });
}

uint64_t SparseMemory::pages_shared() const {
    uint64_t shared = 0;
    for (uint64_t c = 0, n = chunk_count(); c < n; ++c)
        if (const Chunk* chunk = directory_[c])
            for (const Page& page : chunk->pages) shared += page.bytes.use_count() > 1;
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
        Page* found = find(page);
        if (!found) {
            // An absent page reads as zeros, so zeros written to one need no page: timing-only runs move
            // zero-filled inputs and outputs into every device's copy (BERT-large on trn1.32xlarge: GiBs).
            if (all_zero(source + done, chunk)) return true;
            Page& fresh = entry(page);
            ++resident_pages_;
            if (chunk == kPage) {
                fresh = Page{shared_page_with(source + done), true};
                return true;
            }
            fresh = Page{std::shared_ptr<uint8_t[]>(new uint8_t[kPage]()), false};  // zeros around the piece
            std::memcpy(fresh.bytes.get() + offset, source + done, chunk);
            return true;
        }
        // A shared page written whole is replaced, not copied first: the load writes each page of the
        // weights to the same bounce buffer in host memory, whose pages device memory then shares.
        if (found->shared && chunk == kPage) {
            found->bytes = shared_page_with(source + done);
            return true;
        }
        std::memcpy(writable(*found) + offset, source + done, chunk);
        return true;
    });
}

}  // namespace nsim::sim
