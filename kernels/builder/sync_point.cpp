#include "builder/sync_point.h"

namespace nsim::kernels::builder {

void merge(SyncSet& set, const SyncPoint& point) {
    for (SyncPoint& p : set)
        if (p.semaphore == point.semaphore) {
            if (point.value > p.value) p = point;
            return;
        }
    set.push_back(point);
}

void merge_reader(SyncSet& set, const SyncPoint& point) {
    if (point.queue != kManyQueues)
        for (SyncPoint& p : set)
            if (p.queue == point.queue) {
                if (point.order > p.order) p = point;
                return;
            }
    merge(set, point);
}

}  // namespace nsim::kernels::builder
