// The pending writers and readers of every on-chip buffer a CoreBuilder allocates, and which of them
// an access to a buffer reads and updates: those of the live buffers it overlaps that are older than
// it, then its own. A buffer given back by a rewind is never accessed again: a new buffer over it
// takes over its state, and one that covers it makes it drop out.
//
// Programs allocate buffers over the same bytes again and again (the tiles of a room aliased for
// each gradient, each optimizer chunk), and never say when a buffer is dead. Listing every older
// buffer per access made building grow with the square of the program. Here buffers with the same
// bytes form a chain (oldest first) in which consecutive buffers whose states are equal share one:
// an access lists, per chain it overlaps, how many of the chain's buffers it reaches (the chain as it
// was when the accessed buffer was added), and reads and updates each shared state once.
//
// Reading a state once instead of once per buffer leaves the dependencies unchanged: merging a point
// that an earlier one of the same fold already merged changes nothing - except a writer point of
// the tensor engine, which a later reader point of that engine can displace (it is keyed by queue).
// Tensor-engine writer points are in PSUM states only, so while no tensor-engine instruction reads
// PSUM no such reader is merged in the same fold; after one does (read_every_buffer), read() gives
// every buffer's state, as the plain scan did.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "builder/interval_index.h"
#include "builder/sync_point.h"
#include "isa/access_pattern.h"

namespace nsim::kernels::builder {

class BufferStates {
public:
    // Adds buffer `id` (one more than the last) over bytes [lo, hi) of `space`. An untracked one (a
    // region only its aliases use) is not a buffer later ones overlap.
    void add(uint32_t id, isa::MemorySpace space, uint64_t lo, uint64_t hi, bool tracked);
    // Gives back the buffers of `space` that start at `from` or later.
    void retire_from(isa::MemorySpace space, uint64_t from);
    // The states an access to buffer `id` reads, in the order a dependency fold takes them.
    std::vector<const BufferState*> read(uint32_t id) const;
    // Applies `change(BufferState&)` to every state an access to buffer `id` updates.
    template <class F>
    void update(uint32_t id, F&& change) {
        for (const Reach& reach : reaches_.at(id)) {
            Chain& chain = chains_[reach.chain];
            split(chain, reach.count);
            for (Group& group : chain.groups)
                if (group.first < reach.count) change(group.state);
            join_equal(chain);
        }
    }
    // From now on read() gives one state per buffer, repeats included (see the header comment).
    void read_every_buffer() { every_buffer_ = true; }

private:
    struct Group {
        uint32_t first;  // index in the chain of its first buffer; it runs to the next group's first
        BufferState state;
    };
    struct Chain {
        uint64_t lo = 0, hi = 0;
        bool retired = false;
        std::vector<uint32_t> buffers;  // ids, oldest first
        std::vector<Group> groups;
    };
    struct Reach {
        uint32_t chain;
        uint32_t count;  // the chain's first `count` buffers
    };
    void split(Chain& chain, uint32_t at);
    static void join_equal(Chain& chain);

    std::vector<Chain> chains_;
    std::vector<std::vector<Reach>> reaches_;             // by buffer id
    std::map<isa::MemorySpace, IntervalIndex> candidates_;  // by space: chains a new buffer may overlap
    bool every_buffer_ = false;
};

}  // namespace nsim::kernels::builder
