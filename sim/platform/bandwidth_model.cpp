#include "platform/bandwidth_model.h"

#include <algorithm>

namespace nsim::sim {

sc_core::sc_time BandwidthModel::transfer_time(uint64_t bytes) const {
    if (bytes_per_s_ <= 0) return sc_core::SC_ZERO_TIME;
    return sc_core::sc_time(double(bytes) / bytes_per_s_, sc_core::SC_SEC);
}

sc_core::sc_time BandwidthModel::transfer(sc_core::sc_time ready, uint64_t bytes) {
    const sc_core::sc_time start = std::max(ready, free_at_);
    const sc_core::sc_time occupied = transfer_time(bytes);
    free_at_ = start + occupied;
    bytes_moved_ += bytes;
    busy_time_ += occupied;
    return free_at_ + latency_;
}

void annotate_transfer(BandwidthModel& model, uint64_t bytes, sc_core::sc_time& delay) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    delay = model.transfer(now + delay, bytes) - now;
}

}  // namespace nsim::sim
