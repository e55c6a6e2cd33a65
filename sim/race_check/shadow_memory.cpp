#include "race_check/shadow_memory.h"

#include <algorithm>

namespace nsim::sim::race_check {

void ByteState::record_read(Access read) {
    auto it = std::lower_bound(last_reads.begin(), last_reads.end(), read.queue,
                               [](const Access& a, int32_t queue) { return a.queue < queue; });
    if (it != last_reads.end() && it->queue == read.queue)
        *it = read;
    else
        last_reads.insert(it, read);
}

// Makes `at` the beginning of a piece when a piece spans it; returns the first piece at or after it.
ShadowMemory::Pieces::iterator ShadowMemory::split(uint64_t at) {
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

ShadowMemory::Pieces::iterator ShadowMemory::fill_gap(Pieces::iterator next, uint64_t at, uint64_t end) {
    if (next != pieces_.end() && next->first == at) return next;
    const uint64_t gap_end = next == pieces_.end() ? end : std::min(end, next->first);
    return pieces_.emplace_hint(next, at, Piece{gap_end, ByteState{}});
}

void ShadowMemory::merge_equal(uint64_t begin, uint64_t end) {
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
