// One NeuronCore's notification queue (driver.md 9), set up as NOTIFICATIONS_INIT does: a
// power-of-two ring in the driver's host memory whose bus address and size go into the core's
// notific registers. An execution is started by writing the next sequence number to the core's
// execution doorbell; the device answers with a {sequence, status} entry in the ring, which is found
// only by polling host memory (no interrupts, driver.md 7). The poll interval doubles while nothing
// has arrived, so a long execution or a lost notification costs few host-side polls.
#pragma once

#include <cstdint>
#include <string>

#include "bus_access.h"
#include "config/host_spec.h"

namespace nsim::driver {

class NotificationQueue {
public:
    // `queue_pa`: notification_queue_bytes of host memory, aligned to its size.
    NotificationQueue(const MappedBar& bar0, const HostMemory& memory, const config::ChipSpec& chip, unsigned device,
                      unsigned nc, uint64_t queue_pa);

    // Programs the queue's registers and starts it empty (after a core reset too).
    void init();

    struct Completion {
        bool arrived = false;     // false: no notification within the timeout
        uint32_t sequence = 0;
        uint32_t status = 0;      // sim::ExecutionDoorbells::kCompleted / kNothingLoaded / kFailed
        double seconds = 0;       // simulated time from the doorbell to the notification seen
    };
    // Rings the doorbell and waits up to `timeout_s` of simulated time for the notification.
    Completion execute(double timeout_s);

    uint64_t doorbells() const { return doorbells_; }
    uint64_t completions() const { return completions_; }

private:
    bool read_entry(uint32_t* sequence, uint32_t* status) const;

    MappedBar bar0_;
    const HostMemory& memory_;
    const config::NotificationRegisterSpec map_;
    uint64_t pci_host_base_;
    uint64_t queue_pa_;
    uint32_t queue_bytes_;
    double poll_interval_s_;
    unsigned device_, nc_;
    uint32_t next_sequence_ = 1;
    uint64_t read_index_ = 0;     // entries consumed
    uint64_t doorbells_ = 0, completions_ = 0;
};

}  // namespace nsim::driver
