// BufferStates against the plain scan it replaces (every older live buffer an access overlaps, one
// state per buffer): random programs of allocations over few bytes (so that many buffers share
// them), rewinds, reads and writes from several queues, comparing the dependencies each access folds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "builder/buffer_states.h"

namespace nsim::kernels::builder {
namespace {

using isa::MemorySpace;

// CoreBuilder's former bookkeeping: per buffer, the older live buffers it overlaps and its own state.
class ScanModel {
public:
    void add(uint32_t id, MemorySpace space, uint64_t lo, uint64_t hi, bool tracked) {
        Buffer b{space, lo, hi, {}, {}};
        std::vector<uint32_t> kept;
        for (uint32_t c : candidates_) {
            const Buffer& o = buffers_[c];
            if (!(o.space == space && o.lo < hi && lo < o.hi)) {
                kept.push_back(c);
                continue;
            }
            if (!retired_[c]) {
                b.overlaps.push_back(c);
                kept.push_back(c);
                continue;
            }
            for (const SyncPoint& p : o.state.writers) merge(b.state.writers, p);
            for (const SyncPoint& p : o.state.readers) merge_reader(b.state.readers, p);
            for (const SyncSet* set : {&o.state.before_writes, &o.state.writers})
                for (const SyncPoint& p : *set) merge_reader(b.state.before_writes, p);
            if (!tracked || !(lo <= o.lo && o.hi <= hi)) kept.push_back(c);  // an untracked region keeps it
        }
        candidates_ = kept;
        if (tracked) candidates_.push_back(id);
        buffers_.push_back(b);
        retired_.push_back(false);
    }
    void retire_from(MemorySpace space, uint64_t from) {
        for (uint32_t c : candidates_)
            if (buffers_[c].space == space && buffers_[c].lo >= from) retired_[c] = true;
    }
    std::vector<const BufferState*> read(uint32_t id) const {
        std::vector<const BufferState*> out;
        for (uint32_t o : buffers_[id].overlaps) out.push_back(&buffers_[o].state);
        out.push_back(&buffers_[id].state);
        return out;
    }
    template <class F>
    void update(uint32_t id, F&& change) {
        for (uint32_t o : buffers_[id].overlaps) change(buffers_[o].state);
        change(buffers_[id].state);
    }

private:
    struct Buffer {
        MemorySpace space;
        uint64_t lo, hi;
        std::vector<uint32_t> overlaps;
        BufferState state;
    };
    std::vector<Buffer> buffers_;
    std::vector<bool> retired_;
    std::vector<uint32_t> candidates_;
};

enum class Access { Read, Write, PartialWrite, ReadWrite };

// The dependencies CoreBuilder::dependencies folds for one access.
SyncSet fold(const std::vector<const BufferState*>& states, Access access) {
    SyncSet deps;
    for (const BufferState* s : states) {
        const bool write = access == Access::Write || access == Access::PartialWrite;
        if (access != Access::PartialWrite && !(write && !s->readers.empty()))
            for (const SyncPoint& p : s->writers) merge(deps, p);
        if (access != Access::Read)
            for (const SyncPoint& p : s->readers) merge_reader(deps, p);
        if (access == Access::PartialWrite)
            for (const SyncPoint& p : s->before_writes) merge_reader(deps, p);
    }
    return deps;
}

void record(BufferState& state, Access access, const SyncPoint& point) {
    if (access == Access::Read) {
        merge_reader(state.readers, point);
        return;
    }
    if (!state.readers.empty()) state.before_writes = state.readers;
    if (access == Access::PartialWrite) {
        if (!state.readers.empty()) state.writers.clear();
        merge(state.writers, point);
    } else {
        state.writers.assign(1, point);
    }
    state.readers.clear();
}

// Queues 0-2: one semaphore each (ACT, DVE, POOL); queue 3: the tensor engine, a semaphore per PSUM
// bank (4, 5); DMA: semaphores 6, 7 on many queues. `pe_reads_psum` lets the tensor engine read PSUM.
SyncPoint next_point(std::mt19937& rng, MemorySpace space, Access access, bool pe_reads_psum,
                     std::vector<uint32_t>& signals, uint64_t& emitted) {
    int source = std::uniform_int_distribution<int>(0, 4)(rng);  // 0-2 compute, 3 PE, 4 DMA
    const bool pe_allowed = space == MemorySpace::Psum ? (access != Access::Read || pe_reads_psum) : access == Access::Read;
    if (source == 3 && !pe_allowed) source = 0;
    if (space == MemorySpace::Psum && access != Access::Read) source = 3;  // only the tensor engine writes PSUM
    uint16_t semaphore;
    int32_t queue;
    if (source < 3) {
        semaphore = uint16_t(source), queue = source;
    } else if (source == 3) {
        semaphore = uint16_t(4 + std::uniform_int_distribution<int>(0, 1)(rng)), queue = 3;
    } else {
        semaphore = uint16_t(6 + std::uniform_int_distribution<int>(0, 1)(rng)), queue = kManyQueues;
    }
    return SyncPoint{semaphore, ++signals[semaphore], queue, ++emitted};
}

void run_random_program(uint32_t seed, bool pe_reads_psum) {
    std::mt19937 rng(seed);
    BufferStates states;
    ScanModel scan;
    std::vector<MemorySpace> spaces;
    std::vector<uint32_t> signals(8, 0);
    uint64_t emitted = 0;
    for (int step = 0; step < 3000; ++step) {
        const int action = std::uniform_int_distribution<int>(0, 19)(rng);
        if (action < 4 || spaces.empty()) {
            const MemorySpace space = std::uniform_int_distribution<int>(0, 3)(rng) ? MemorySpace::Sbuf : MemorySpace::Psum;
            const uint64_t lo = 16 * std::uniform_int_distribution<uint64_t>(0, 12)(rng);
            const uint64_t hi = lo + 16 * std::uniform_int_distribution<uint64_t>(0, 4)(rng);
            const bool tracked = std::uniform_int_distribution<int>(0, 9)(rng) != 0;
            const uint32_t id = uint32_t(spaces.size());
            states.add(id, space, lo, hi, tracked);
            scan.add(id, space, lo, hi, tracked);
            spaces.push_back(space);
        } else if (action == 4) {
            const uint64_t from = 16 * std::uniform_int_distribution<uint64_t>(0, 12)(rng);
            states.retire_from(MemorySpace::Sbuf, from);
            scan.retire_from(MemorySpace::Sbuf, from);
        } else {
            // Mostly the newest buffers, as kernels do; sometimes an old one again.
            const uint32_t n = uint32_t(spaces.size());
            const uint32_t back = std::uniform_int_distribution<int>(0, 4)(rng) ? std::uniform_int_distribution<uint32_t>(0, std::min(n, 6u) - 1)(rng)
                                                                                 : std::uniform_int_distribution<uint32_t>(0, n - 1)(rng);
            const uint32_t id = n - 1 - back;
            const Access access = Access(std::uniform_int_distribution<int>(0, 3)(rng));
            const SyncSet expected = fold(scan.read(id), access);
            ASSERT_EQ(fold(states.read(id), access), expected) << "step " << step << ", buffer " << id;
            const SyncPoint point = next_point(rng, spaces[id], access, pe_reads_psum, signals, emitted);
            if (access == Access::Read && spaces[id] == MemorySpace::Psum && point.queue == 3) states.read_every_buffer();
            states.update(id, [&](BufferState& s) { record(s, access, point); });
            scan.update(id, [&](BufferState& s) { record(s, access, point); });
        }
    }
}

TEST(BufferStates, FoldsTheDependenciesThePlainScanFolds) {
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE(seed);
        run_random_program(seed, false);
    }
}

TEST(BufferStates, FoldsTheDependenciesThePlainScanFoldsWhenTheTensorEngineReadsPsum) {
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE(seed);
        run_random_program(seed, true);
    }
}

// A region (untracked: only its aliases are) placed over a given-back buffer does not drop it: an
// alias made in the region later still waits for the given-back buffer's readers and writer (the
// training step's gradient rooms, placed again after a rewind, raced with the blocks before).
TEST(BufferStates, AnAliasInARegionOverAGivenBackBufferInheritsItsState) {
    BufferStates states;
    states.add(0, MemorySpace::Sbuf, 64, 128, true);
    const SyncPoint writer{6, 1, kManyQueues, 1}, reader{2, 1, 2, 2};
    states.update(0, [&](BufferState& s) { record(s, Access::Write, writer); });
    states.update(0, [&](BufferState& s) { record(s, Access::Read, reader); });
    states.retire_from(MemorySpace::Sbuf, 0);
    states.add(1, MemorySpace::Sbuf, 0, 256, false);  // the region, over all of buffer 0
    states.add(2, MemorySpace::Sbuf, 96, 160, true);  // an alias in it, over part of buffer 0
    EXPECT_EQ(fold(states.read(2), Access::Write), SyncSet{reader});
    EXPECT_EQ(fold(states.read(2), Access::Read), SyncSet{writer});
}

TEST(BufferStates, BuffersMustComeInIdOrder) {
    BufferStates states;
    states.add(0, MemorySpace::Sbuf, 0, 64, true);
    EXPECT_THROW(states.add(2, MemorySpace::Sbuf, 0, 64, true), std::logic_error);
}

}  // namespace
}  // namespace nsim::kernels::builder
