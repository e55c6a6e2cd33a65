// What the race checker remembers about each byte of one address space: the last write and, per
// queue, the last read since it (FastTrack's shadow state, over intervals rather than words).
// Intervals with equal state are kept merged, so a buffer accessed whole stays one entry.
#pragma once

#include <algorithm>
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

// [0, 2^64) in intervals, each with a State; untouched intervals have State{}. Equal neighbours are merged.
template <class State>
class IntervalMap {
public:
    // Calls visit(state, begin) on every piece of [range) with its current state; `begin` is where
    // the piece starts. (The range is of bytes or, for the inner maps of SBUF and PSUM, of partitions.)
    template <class Visit>
    void update(ByteRange range, Visit&& visit);
    bool operator==(const IntervalMap& o) const { return pieces_ == o.pieces_; }

private:
    struct Piece {
        uint64_t end;
        State state;
        bool operator==(const Piece& o) const { return end == o.end && state == o.state; }
    };
    using Pieces = std::map<uint64_t, Piece>;   // by begin; non-overlapping; gaps are untouched
    // Makes `at` the beginning of a piece when a piece spans it; returns the first piece at or after it.
    typename Pieces::iterator split(uint64_t at);
    // Gives [at, end) a fresh piece unless one starts at `at`; returns the piece at `at`.
    typename Pieces::iterator fill_gap(typename Pieces::iterator next, uint64_t at, uint64_t end);
    // Merges equal neighbours from the piece before `begin` to the one starting at `end`.
    void merge_equal(uint64_t begin, uint64_t end);

    Pieces pieces_;
};

// One address space. SBUF and PSUM: by byte within a partition, then by partition: an access covers
// the same bytes of consecutive partitions, so a tile over 128 partitions is one update and (while
// they agree) one state, not 128. Device and host memory: by byte (one "partition").
class ShadowMemory {
public:
    // Calls visit(state, address) on every piece of `region`, `address` its first byte as
    // (partition << 32) + byte.
    template <class Visit>
    void update(const Region& region, Visit&& visit) {
        bytes_.update(region.bytes, [&](IntervalMap<ByteState>& partitions, uint64_t byte) {
            partitions.update({region.first_partition, region.end_partition},
                              [&](ByteState& state, uint64_t partition) { visit(state, (partition << 32) + byte); });
        });
    }

private:
    IntervalMap<IntervalMap<ByteState>> bytes_;
};

template <class State>
template <class Visit>
void IntervalMap<State>::update(ByteRange range, Visit&& visit) {
    if (range.begin >= range.end) return;
    split(range.end);
    auto it = split(range.begin);
    for (uint64_t at = range.begin; at < range.end; ++it) {
        it = fill_gap(it, at, range.end);
        visit(it->second.state, it->first);
        at = it->second.end;
    }
    merge_equal(range.begin, range.end);
}

template <class State>
typename IntervalMap<State>::Pieces::iterator IntervalMap<State>::split(uint64_t at) {
    auto it = pieces_.upper_bound(at);
    if (it != pieces_.begin()) {
        auto before = std::prev(it);
        if (before->first < at && before->second.end > at) {
            Piece tail{before->second.end, before->second.state};
            before->second.end = at;
            return pieces_.emplace_hint(it, at, std::move(tail));
        }
        if (before->first == at) return before;
    }
    return it;
}

template <class State>
typename IntervalMap<State>::Pieces::iterator IntervalMap<State>::fill_gap(typename Pieces::iterator next, uint64_t at,
                                                                           uint64_t end) {
    if (next != pieces_.end() && next->first == at) return next;
    const uint64_t gap_end = next == pieces_.end() ? end : std::min(end, next->first);
    return pieces_.emplace_hint(next, at, Piece{gap_end, State{}});
}

template <class State>
void IntervalMap<State>::merge_equal(uint64_t begin, uint64_t end) {
    auto first = pieces_.lower_bound(begin);
    if (first != pieces_.begin()) --first;
    while (first != pieces_.end() && first->first <= end) {
        auto next = std::next(first);
        if (next != pieces_.end() && first->second.end == next->first && first->second.state == next->second.state) {
            first->second.end = next->second.end;
            pieces_.erase(next);
        } else {
            first = next;
        }
    }
}

}  // namespace nsim::sim::race_check
