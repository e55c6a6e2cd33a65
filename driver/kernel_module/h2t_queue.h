// A driver-owned UDMA queue used for host<->device copies (the per-core "H2T" queue, driver.md 7):
// TX and RX descriptor rings in host memory, filled with one TX/RX pair per <= max-descriptor chunk,
// followed by a completion-marker pair that copies a marker word from one host word to the next.
// The doorbell is a tail increment (RX first, then TX); completion is detected only by polling the
// marker's destination word - there are no interrupts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bus_access.h"
#include "config/host_spec.h"

namespace nsim::driver {

// Device bus addresses (host memory is at pci_host_base + physical address).
struct DmaTransfer {
    uint64_t source = 0;
    uint64_t destination = 0;
    uint64_t length = 0;
};

class H2tQueue {
public:
    // `ring_pa` holds both rings and the marker words: ring_bytes(chip) of host memory, aligned.
    H2tQueue(const MappedBar& bar0, const HostMemory& memory, const config::ChipSpec& chip, unsigned device_index,
             unsigned engine, unsigned queue, uint64_t ring_pa);

    static uint64_t ring_bytes(const config::ChipSpec& chip);

    // Programs the ring registers and starts both rings at descriptor 0 (ndmar_init).
    void init();

    struct Result {
        bool ok = true;
        std::string message;     // "DMA completion timeout on nd0 for eng 2 q15 desc count 3"
        double seconds = 0;      // simulated time from doorbell to completion seen
    };
    // Copies and waits. `fail_wait` (fault injection) makes the wait report a timeout.
    Result copy(const std::vector<DmaTransfer>& transfers, bool fail_wait = false);

    // The same in steps, for a caller that waits on several queues at once: start() rings the
    // doorbell for one batch (at most batch_pairs() descriptor pairs after the split into
    // descriptor-sized pairs); finished() polls its marker; timed_out() is the wait's failure (and
    // re-initialises the ring, as ndmar re-init does).
    void start(const std::vector<DmaTransfer>& transfers);
    bool finished() const;
    bool past_timeout() const;
    Result timed_out();
    double started_s() const { return started_s_; }

    unsigned engine() const { return engine_; }
    unsigned queue() const { return queue_; }

private:
    void write_descriptor(uint64_t ring_pa, uint32_t index, uint32_t len_ctrl, uint64_t buffer);
    Result run_batch(const std::vector<DmaTransfer>& pairs, bool fail_wait);
    std::vector<DmaTransfer> descriptor_pairs(const std::vector<DmaTransfer>& transfers) const;
    void start_pairs(const std::vector<DmaTransfer>& data_pairs);
    uint64_t reg(bool s2m, uint32_t offset) const;

    MappedBar bar0_;
    const HostMemory& memory_;
    const config::RegisterMapSpec map_;
    const config::DriverSpec drv_;
    unsigned device_;
    unsigned engine_, queue_;
    uint64_t tx_pa_, rx_pa_, marker_pa_;
    uint32_t ring_size_;
    uint32_t tail_ = 0;
    uint32_t laps_ = 0;
    double started_s_ = 0;          // the running batch's doorbell
    size_t started_pairs_ = 0;      // its descriptor pairs, marker included
};

}  // namespace nsim::driver
