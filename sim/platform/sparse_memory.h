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
//
// Pages are found through a two-level table (a directory of chunks of pages), not a hash map: a
// functional run reads and writes SBUF and PSUM a partition row at a time, millions of lookups,
// and a hash map's lookup (a division and a pointer chase) was a sixth of the run. The directory
// is allocated zeroed and untouched (calloc), so an unwritten terabyte still costs no host memory.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace nsim::sim {

class SparseMemory {
public:
    explicit SparseMemory(uint64_t size_bytes);
    ~SparseMemory();
    SparseMemory(const SparseMemory&) = delete;
    SparseMemory& operator=(const SparseMemory&) = delete;

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
    uint64_t resident_bytes() const { return resident_pages_ * kPageBytes; }
    // Pages this memory holds together with another memory or another place in itself.
    uint64_t pages_shared() const;

    // Host-side allocation granularity; not a property of the simulated hardware. The driver's
    // allocations are aligned to 4 KiB, so pages of one size line up between copies of the same bytes.
    static constexpr uint64_t kPageBytes = uint64_t(1) << 12;

private:
    struct Page {
        std::shared_ptr<uint8_t[]> bytes;  // null: never written, reads as zeros
        bool shared = false;  // known to the pool of shared pages: never written in place
    };
    // Host-side grouping of pages in the table: 2 MiB of simulated memory per chunk.
    static constexpr uint64_t kChunkPages = 512;
    struct Chunk {
        Page pages[kChunkPages];
    };
    struct FreeDirectory {
        void operator()(Chunk** directory) const { std::free(directory); }
    };

    uint64_t chunk_count() const { return size_ / (kPageBytes * kChunkPages) + 1; }
    // The page at this index, or null when nothing was written to it.
    const Page* find(uint64_t page) const {
        const Chunk* chunk = directory_[page / kChunkPages];
        const Page* found = chunk ? &chunk->pages[page % kChunkPages] : nullptr;
        return found && found->bytes ? found : nullptr;
    }
    Page* find(uint64_t page) { return const_cast<Page*>(static_cast<const SparseMemory&>(*this).find(page)); }
    // The entry for this index, its chunk made when absent (its bytes null while never written).
    Page& entry(uint64_t page);
    uint8_t* writable(Page& page);

    uint64_t size_;
    std::unique_ptr<Chunk*[], FreeDirectory> directory_;
    uint64_t resident_pages_ = 0;
};

}  // namespace nsim::sim
