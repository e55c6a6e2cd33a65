// What the race checker remembers about each byte of one address space: the last write and, per
// queue, the last read since it (FastTrack's shadow state, over byte intervals rather than words).
// Intervals with equal state are kept merged, so a buffer accessed whole stays one entry.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

#include "race_check/memory_footprint.h"

namespace nsim::sim::race_check {

struct Access {
    int32_t queue = -1;   // -1: nothing (or, for writes, the host before the execution)
    uint32_t index = 0;
    bool operator==(const Access& o) const { return queue == o.queue && index == o.index; }
};

struct ByteState {
    bool written = false;
    Access last_write;
    // A write unordered with last_write: which value the bytes hold depends on timing, which matters
    // once something reads them (a write nobody reads, like a semaphore-carrying marker, races harmlessly).
    Access racing_write;
    // last_write read bytes nothing had written (index into the checker's list; -1: no): reported
    // once these bytes are read in turn or are an output (a marker computing garbage into a word
    // nobody reads is harmless).
    int32_t unwritten_source = -1;
    // The last read since last_write of each queue that read them, by queue: a few of a core's
    // hundreds of queues read any one byte, so the state lists those rather than every queue.
    std::vector<Access> last_reads;

    // Makes `read` its queue's last read.
    void record_read(Access read);
    bool operator==(const ByteState& o) const {
        return written == o.written && last_write == o.last_write && racing_write == o.racing_write &&
               unwritten_source == o.unwritten_source && last_reads == o.last_reads;
    }
};

class ShadowMemory {
public:
    // Calls update(state) on every piece of [range) with its current state (a fresh one where never touched).
    template <class Update>
    void update(ByteRange range, Update&& update);

private:
    struct Piece {
        uint64_t end;
        ByteState state;
    };
    using Pieces = std::map<uint64_t, Piece>;   // by begin; non-overlapping; gaps are untouched bytes
    Pieces::iterator split(uint64_t at);
    // Gives [at, end) a fresh piece unless one starts at `at`; returns the piece at `at`.
    Pieces::iterator fill_gap(Pieces::iterator next, uint64_t at, uint64_t end);
    // Merges equal neighbours from the piece before `begin` to the one starting at `end`.
    void merge_equal(uint64_t begin, uint64_t end);

    Pieces pieces_;
};

template <class Update>
void ShadowMemory::update(ByteRange range, Update&& update) {
    if (range.begin >= range.end) return;
    split(range.end);
    auto it = split(range.begin);
    for (uint64_t at = range.begin; at < range.end; ++it) {
        it = fill_gap(it, at, range.end);
        update(it->second.state);
        at = it->second.end;
    }
    merge_equal(range.begin, range.end);
}

}  // namespace nsim::sim::race_check
