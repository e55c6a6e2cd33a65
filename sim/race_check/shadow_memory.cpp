#include "race_check/shadow_memory.h"

#include <iterator>

namespace nsim::sim::race_check {

// Makes `at` the beginning of a piece when a piece spans it; returns the first piece at or after it.
std::map<uint64_t, ShadowMemory::Piece>::iterator ShadowMemory::split(uint64_t at) {
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

void ShadowMemory::update(ByteRange range, const std::function<void(ByteState&)>& update) {
    if (range.begin >= range.end) return;
    split(range.end);
    auto it = split(range.begin);
    // Fill the gaps with fresh pieces so every byte of the range has one.
    uint64_t at = range.begin;
    while (at < range.end) {
        if (it == pieces_.end() || it->first > at) {
            const uint64_t gap_end = it == pieces_.end() ? range.end : std::min(range.end, it->first);
            it = pieces_.emplace_hint(it, at, Piece{gap_end, ByteState{false, {}, {}, -1, std::vector<int32_t>(queues_, -1)}});
        }
        update(it->second.state);
        at = it->second.end;
        ++it;
    }
    // Merge equal neighbours from just before the range to just after it.
    auto first = pieces_.lower_bound(range.begin);
    if (first != pieces_.begin()) --first;
    while (first != pieces_.end() && first->first <= range.end) {
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
