#include "notification_queue.h"

#include <algorithm>
#include <vector>

#include "host_time.h"

namespace nsim::driver {

NotificationQueue::NotificationQueue(const MappedBar& bar0, const HostMemory& memory, const config::ChipSpec& chip,
                                     unsigned device, unsigned nc, uint64_t queue_pa)
    : bar0_(bar0), memory_(memory), map_(chip.registers.notific), pci_host_base_(chip.registers.pci_host_base),
      queue_pa_(queue_pa), queue_bytes_(uint32_t(chip.driver.notification_queue_bytes)),
      poll_interval_s_(chip.driver.exec_poll_interval_s), device_(device), nc_(nc) {}

void NotificationQueue::init() {
    const std::vector<uint8_t> zeros(queue_bytes_, 0);
    memory_.write(queue_pa_, zeros.data(), zeros.size());
    const uint64_t base = map_.base + uint64_t(nc_) * map_.core_stride;
    const uint64_t bus = pci_host_base_ + queue_pa_;
    bar0_.write32(base + map_.queue_base_lo, uint32_t(bus));
    bar0_.write32(base + map_.queue_base_hi, uint32_t(bus >> 32));
    bar0_.write32(base + map_.queue_size, queue_bytes_);
    read_index_ = 0;
}

bool NotificationQueue::read_entry(uint32_t* sequence, uint32_t* status) const {
    const uint64_t entries = queue_bytes_ / map_.entry_bytes;
    const uint64_t address = queue_pa_ + (read_index_ % entries) * map_.entry_bytes;
    *sequence = memory_.read32(address);
    *status = memory_.read32(address + 4);
    return *sequence != 0;
}

NotificationQueue::Completion NotificationQueue::execute(double timeout_s) {
    Completion completion;
    const double start = host_time::now_s();
    const uint32_t sequence = next_sequence_++;
    if (next_sequence_ == 0) next_sequence_ = 1;   // 0 marks an empty entry
    ++doorbells_;
    bar0_.write32(map_.base + uint64_t(nc_) * map_.core_stride + map_.doorbell, sequence);
    double interval = poll_interval_s_;
    for (;;) {
        uint32_t seen = 0, status = 0;
        if (read_entry(&seen, &status) && seen == sequence) {
            // Consumed: cleared so that the slot reads empty when the ring comes round again.
            const uint64_t entries = queue_bytes_ / map_.entry_bytes;
            memory_.write32(queue_pa_ + (read_index_ % entries) * map_.entry_bytes, 0);
            ++read_index_;
            ++completions_;
            completion.arrived = true;
            completion.sequence = seen;
            completion.status = status;
            break;
        }
        const double waited = host_time::now_s() - start;
        if (waited >= timeout_s) break;
        host_time::advance_s(std::min(interval, timeout_s - waited));
        interval *= 2;
    }
    completion.seconds = host_time::now_s() - start;
    return completion;
}

}  // namespace nsim::driver
