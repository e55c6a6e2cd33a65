#include "builder/buffer_states.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace nsim::kernels::builder {
namespace {

using StatesById = std::vector<std::pair<uint32_t, const BufferState*>>;

std::vector<const BufferState*> in_id_order(StatesById& states) {
    std::sort(states.begin(), states.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<const BufferState*> out;
    out.reserve(states.size());
    for (const auto& s : states) out.push_back(s.second);
    return out;
}

}  // namespace

// Over buffers a rewind gave back: their states merged in the order of their ids (a state met again
// changes neither set: writers merge by semaphore, readers by queue), and those a tracked buffer
// covers dropped.
void BufferStates::add(uint32_t id, isa::MemorySpace space, uint64_t lo, uint64_t hi, bool tracked) {
    if (id != reaches_.size()) throw std::logic_error("BufferStates: buffers must be added in id order");
    IntervalIndex& candidates = candidates_[space];
    std::vector<Reach> reach;
    StatesById given_back;
    int64_t same_bytes = -1;  // a live chain over exactly these bytes (none for an empty buffer)
    for (uint32_t c : candidates.overlapping(lo, hi)) {
        Chain& chain = chains_[c];
        if (!chain.retired) {
            if (hi > lo && chain.lo == lo && chain.hi == hi)
                same_bytes = c;
            else
                reach.push_back({c, uint32_t(chain.buffers.size())});
            continue;
        }
        for (const Group& g : chain.groups) given_back.push_back({chain.buffers[g.first], &g.state});
        // Dropped when a tracked buffer covers it; an untracked region keeps it, so the aliases made
        // in the region (which never meet the region's own chain) still inherit what it was waiting for.
        if (tracked && lo <= chain.lo && chain.hi <= hi) candidates.erase(c);
    }
    BufferState inherited;
    for (const BufferState* s : in_id_order(given_back)) {
        for (const SyncPoint& p : s->writers) merge(inherited.writers, p);
        for (const SyncPoint& p : s->readers) merge_reader(inherited.readers, p);
        // A partial write into the new buffer waits for no writer: it must still follow the old ones.
        for (const SyncSet* set : {&s->before_writes, &s->writers})
            for (const SyncPoint& p : *set) merge_reader(inherited.before_writes, p);
    }
    if (same_bytes >= 0 && tracked) {
        Chain& chain = chains_[size_t(same_bytes)];
        chain.groups.push_back({uint32_t(chain.buffers.size()), std::move(inherited)});
        chain.buffers.push_back(id);
        reach.push_back({uint32_t(same_bytes), uint32_t(chain.buffers.size())});
    } else {
        if (same_bytes >= 0) reach.push_back({uint32_t(same_bytes), uint32_t(chains_[size_t(same_bytes)].buffers.size())});
        const uint32_t c = uint32_t(chains_.size());
        Chain chain;
        chain.lo = lo;
        chain.hi = hi;
        chain.buffers.push_back(id);
        chain.groups.push_back({0, std::move(inherited)});
        chains_.push_back(std::move(chain));
        reach.push_back({c, 1});
        if (tracked) candidates.insert(c, lo, hi);
    }
    reaches_.push_back(std::move(reach));
}

void BufferStates::retire_from(isa::MemorySpace space, uint64_t from) {
    for (uint32_t c : candidates_[space].starting_from(from)) chains_[c].retired = true;
}

std::vector<const BufferState*> BufferStates::read(uint32_t id) const {
    StatesById states;
    for (const Reach& reach : reaches_.at(id)) {
        const Chain& chain = chains_[reach.chain];
        for (size_t g = 0; g < chain.groups.size() && chain.groups[g].first < reach.count; ++g) {
            const uint32_t end = g + 1 < chain.groups.size() ? std::min(chain.groups[g + 1].first, reach.count) : reach.count;
            for (uint32_t b = chain.groups[g].first; b < end; ++b) {
                states.push_back({chain.buffers[b], &chain.groups[g].state});
                if (!every_buffer_) break;
            }
        }
    }
    return in_id_order(states);
}

// An access that reaches part of a group: the group becomes two with equal states.
void BufferStates::split(Chain& chain, uint32_t at) {
    if (at >= chain.buffers.size()) return;
    for (size_t g = 0; g < chain.groups.size(); ++g) {
        const uint32_t end = g + 1 < chain.groups.size() ? chain.groups[g + 1].first : uint32_t(chain.buffers.size());
        if (chain.groups[g].first < at && at < end) {
            Group second{at, chain.groups[g].state};
            chain.groups.insert(chain.groups.begin() + g + 1, std::move(second));
            return;
        }
    }
}

void BufferStates::join_equal(Chain& chain) {
    size_t kept = 0;
    for (size_t g = 1; g < chain.groups.size(); ++g) {
        if (chain.groups[g].state == chain.groups[kept].state) continue;
        if (++kept != g) chain.groups[kept] = std::move(chain.groups[g]);
    }
    chain.groups.resize(kept + 1);
}

}  // namespace nsim::kernels::builder
