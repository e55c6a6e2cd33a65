// What an instruction waits for: a semaphore value its producer signals, and the sets of them the
// builder keeps per buffer (its pending writers and readers) and per instruction (its dependencies).
#pragma once

#include <cstdint>
#include <vector>

namespace nsim::kernels::builder {

constexpr int32_t kManyQueues = -1;

struct SyncPoint {
    uint16_t semaphore = 0;
    uint32_t value = 0;
    int32_t queue = kManyQueues;  // the queue that produced it, when it is a single one
    uint64_t order = 0;           // emission order of the producing instruction

    bool operator==(const SyncPoint& o) const {
        return semaphore == o.semaphore && value == o.value && queue == o.queue && order == o.order;
    }
};

// Writers: at most one entry per semaphore (the largest value). Readers: besides, at most one entry
// per producing queue (the latest): an in-order engine's later instruction finishing means the
// earlier ones have read their operands - even on the tensor engine, whose results may still be in
// flight. The order of the entries is the order their keys first came: it is the order of the waits.
using SyncSet = std::vector<SyncPoint>;

void merge(SyncSet& set, const SyncPoint& point);
void merge_reader(SyncSet& set, const SyncPoint& point);

struct BufferState {
    SyncSet writers, readers;
    // The accesses the writes since the last read waited for: the readers before them (and, over
    // given-back bytes, the old buffer's writers). A partial write waits for no other write, so it
    // waits for these itself: the writes it skips were ordered after them, it is not.
    SyncSet before_writes;

    bool operator==(const BufferState& o) const {
        return writers == o.writers && readers == o.readers && before_writes == o.before_writes;
    }
};

}  // namespace nsim::kernels::builder
