// What the race checker remembers about each byte of one address space: the last write and, per
// queue, the last read since it (FastTrack's shadow state, over byte intervals rather than words).
// Intervals with equal state are kept merged, so a buffer accessed whole stays one entry.
#pragma once

#include <cstdint>
#include <functional>
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
    std::vector<int32_t> last_read;   // per queue, index of its last read since last_write (-1: none)
    bool operator==(const ByteState& o) const {
        return written == o.written && last_write == o.last_write && racing_write == o.racing_write &&
               unwritten_source == o.unwritten_source && last_read == o.last_read;
    }
};

class ShadowMemory {
public:
    explicit ShadowMemory(size_t queues) : queues_(queues) {}
    // Calls update(state) on every piece of [range) with its current state (a fresh one where never touched).
    void update(ByteRange range, const std::function<void(ByteState&)>& update);

private:
    struct Piece {
        uint64_t end;
        ByteState state;
    };
    std::map<uint64_t, Piece>::iterator split(uint64_t at);

    size_t queues_;
    std::map<uint64_t, Piece> pieces_;   // by begin; non-overlapping; gaps are untouched bytes
};

}  // namespace nsim::sim::race_check
