#include "h2t_queue.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "host_time.h"

namespace nsim::driver {
namespace {
uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }
}  // namespace

uint64_t H2tQueue::ring_bytes(const config::ChipSpec& chip) {
    const uint64_t ring = align_up(uint64_t(chip.driver.h2t_ring_descriptors) * chip.registers.descriptor.bytes,
                                   chip.registers.udma.ring_alignment);
    // TX ring, RX ring, then the marker source and destination words.
    return 2 * ring + chip.registers.udma.ring_alignment;
}

H2tQueue::H2tQueue(const MappedBar& bar0, const HostMemory& memory, const config::ChipSpec& chip, unsigned device_index,
                   unsigned engine, unsigned queue, uint64_t ring_pa)
    : bar0_(bar0), memory_(memory), map_(chip.registers), drv_(chip.driver), device_(device_index), engine_(engine),
      queue_(queue), ring_size_(chip.driver.h2t_ring_descriptors) {
    const uint64_t ring = align_up(uint64_t(ring_size_) * map_.descriptor.bytes, map_.udma.ring_alignment);
    tx_pa_ = ring_pa;
    rx_pa_ = ring_pa + ring;
    marker_pa_ = ring_pa + 2 * ring;
}

uint64_t H2tQueue::reg(bool s2m, uint32_t offset) const {
    const config::UdmaRegisterSpec& u = map_.udma;
    return u.base + engine_ * u.engine_stride + (s2m ? u.s2m : 0) + u.queues + queue_ * u.queue_stride + offset;
}

void H2tQueue::init() {
    for (bool s2m : {false, true}) {
        const uint64_t bus = map_.pci_host_base + (s2m ? rx_pa_ : tx_pa_);
        bar0_.write32(reg(s2m, map_.udma.ring_length), ring_size_);
        bar0_.write32(reg(s2m, map_.udma.ring_base_hi), uint32_t(bus >> 32));
        bar0_.write32(reg(s2m, map_.udma.ring_base_lo), uint32_t(bus));  // last: (re)starts the ring
    }
    tail_ = 0;
    laps_ = 0;
}

void H2tQueue::write_descriptor(uint64_t ring_pa, uint32_t index, uint32_t len_ctrl, uint64_t buffer) {
    std::vector<uint8_t> bytes(map_.descriptor.bytes, 0);
    std::copy_n(reinterpret_cast<const uint8_t*>(&len_ctrl), 4, bytes.begin());
    std::copy_n(reinterpret_cast<const uint8_t*>(&buffer), 8, bytes.begin() + 8);
    memory_.write(ring_pa + uint64_t(index) * map_.descriptor.bytes, bytes.data(), bytes.size());
}

std::vector<DmaTransfer> H2tQueue::descriptor_pairs(const std::vector<DmaTransfer>& transfers) const {
    const uint64_t max_bytes = map_.descriptor.max_transfer_bytes();
    std::vector<DmaTransfer> pairs;
    for (const DmaTransfer& t : transfers)
        for (uint64_t done = 0; done < t.length; done += max_bytes)
            pairs.push_back({t.source + done, t.destination + done, std::min(max_bytes, t.length - done)});
    return pairs;
}

H2tQueue::Result H2tQueue::copy(const std::vector<DmaTransfer>& transfers, bool fail_wait) {
    // Split into descriptor-sized pairs; a batch leaves room in the ring for its marker pair.
    const std::vector<DmaTransfer> pairs = descriptor_pairs(transfers);
    Result total;
    const size_t batch = ring_size_ - 1;
    for (size_t first = 0; first < pairs.size() || (first == 0 && pairs.empty()); first += batch) {
        const std::vector<DmaTransfer> slice(pairs.begin() + first, pairs.begin() + std::min(pairs.size(), first + batch));
        const Result r = run_batch(slice, fail_wait);
        total.seconds += r.seconds;
        if (!r.ok) return {false, r.message, total.seconds};
        if (pairs.empty()) break;
    }
    return total;
}

void H2tQueue::start(const std::vector<DmaTransfer>& transfers) {
    const std::vector<DmaTransfer> pairs = descriptor_pairs(transfers);
    if (pairs.size() > size_t(ring_size_) - 1)
        throw std::length_error(fmt::format("{} descriptor pairs exceed the H2T ring's {}", pairs.size(), ring_size_ - 1));
    start_pairs(pairs);
}

void H2tQueue::start_pairs(const std::vector<DmaTransfer>& data_pairs) {
    const config::DescriptorFormatSpec& d = map_.descriptor;
    const uint32_t length_mask = uint32_t(d.max_transfer_bytes() - 1);
    std::vector<DmaTransfer> pairs = data_pairs;
    const uint64_t marker_source = map_.pci_host_base + marker_pa_;
    pairs.push_back({marker_source, marker_source + 4, 4});
    memory_.write32(marker_pa_, drv_.completion_marker);
    memory_.write32(marker_pa_ + 4, 0);

    for (const DmaTransfer& pair : pairs) {
        const uint32_t phase = (d.initial_phase + laps_) & d.phase_mask;
        const uint32_t len_ctrl = (uint32_t(pair.length) & length_mask) | (phase << d.phase_shift) | d.first_flag | d.last_flag;
        write_descriptor(tx_pa_, tail_, len_ctrl, pair.source);
        write_descriptor(rx_pa_, tail_, len_ctrl, pair.destination);
        if (++tail_ == ring_size_) {
            tail_ = 0;
            ++laps_;
        }
    }
    started_s_ = host_time::now_s();
    started_pairs_ = pairs.size();
    bar0_.write32(reg(true, map_.udma.tail_increment), uint32_t(pairs.size()));
    bar0_.write32(reg(false, map_.udma.tail_increment), uint32_t(pairs.size()));
}

bool H2tQueue::finished() const { return memory_.read32(marker_pa_ + 4) == drv_.completion_marker; }

bool H2tQueue::past_timeout() const {
    return host_time::now_s() - started_s_ >= drv_.dma_timeout_per_descriptor_s * double(started_pairs_);
}

H2tQueue::Result H2tQueue::timed_out() {
    Result result;
    result.ok = false;
    result.seconds = host_time::now_s() - started_s_;
    result.message = fmt::format("DMA completion timeout on nd{:02} for eng {} q{} desc count {}", device_, engine_,
                                 queue_, started_pairs_);
    init();  // the ring's state is unknown now: start it afresh, as ndmar re-init does
    return result;
}

H2tQueue::Result H2tQueue::run_batch(const std::vector<DmaTransfer>& data_pairs, bool fail_wait) {
    start_pairs(data_pairs);
    bool done = false;
    if (!fail_wait) {
        while (!done && !past_timeout()) {
            host_time::advance_s(drv_.dma_poll_interval_s);
            done = finished();
        }
    }
    if (!done) return timed_out();
    Result result;
    result.seconds = host_time::now_s() - started_s_;
    return result;
}

}  // namespace nsim::driver
