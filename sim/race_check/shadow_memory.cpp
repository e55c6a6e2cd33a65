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

}  // namespace nsim::sim::race_check
