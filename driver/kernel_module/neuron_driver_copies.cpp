// MEM_BUF_COPY: user buffers <-> memory chunks through the cores' H2T queues and the device's host
// bounce buffer, one thread's copies or several threads' at once (each on its own core's queue).
#include "neuron_driver.h"

#include <algorithm>
#include <cerrno>
#include <map>

#include <fmt/format.h>

#include "host_time.h"

namespace nsim::driver {

// Where one lane of copy_concurrently is: the copy it runs, how far, and the queue it waits on.
struct NeuronDriver::LaneProgress {
    const CopyLane* lane = nullptr;
    std::vector<CopySpan>* spans = nullptr;
    unsigned device = 0;
    uint64_t bounce_pa = 0;      // this lane's part of the device's bounce buffer
    uint64_t bounce_bytes = 0;
    size_t index = 0;            // the copy running
    uint64_t done = 0;           // its bytes already copied
    uint64_t step_bytes = 0;     // the running step's
    H2tQueue* queue = nullptr;   // the queue the running step waits on; null: the lane is done
};

void NeuronDriver::copy_to_device(uint64_t handle, uint64_t offset, const void* data, uint64_t size) {
    copy_concurrently({{chunk(handle).nc, {{handle, offset, const_cast<void*>(data), size, true}}}});
}

void NeuronDriver::copy_from_device(uint64_t handle, uint64_t offset, void* data, uint64_t size) {
    copy_concurrently({{chunk(handle).nc, {{handle, offset, data, size, false}}}});
}

// Starts the lane's next DMA step (host memory needs none: the CPU copies it at once), or marks the
// lane done.
void NeuronDriver::start_copy_step(LaneProgress& lane) {
    const std::vector<HostCopy>& copies = lane.lane->copies;
    for (; lane.index < copies.size(); ++lane.index, lane.done = 0) {
        const HostCopy& h = copies[lane.index];
        CopySpan& span = (*lane.spans)[lane.index];
        if (lane.done == 0) span.start = host_time::now();
        const MemChunk c = chunk(h.handle);
        auto* bytes = static_cast<uint8_t*>(h.host);
        if (c.host) {
            if (h.to_device) host_memory_.write(c.address + h.offset, bytes, h.size);
            else host_memory_.read(c.address + h.offset, bytes, h.size);
            lane.done = h.size;
        }
        if (lane.done == h.size) {
            span.end = host_time::now();
            continue;
        }
        Device& d = at(c.device);
        const uint64_t n = std::min(lane.bounce_bytes, h.size - lane.done);
        const uint64_t bounce_bus = spec_.chip.registers.pci_host_base + lane.bounce_pa;
        const uint64_t device_address = bus_address(c) + h.offset + lane.done;
        if (h.to_device) host_memory_.write(lane.bounce_pa, bytes + lane.done, n);
        lane.queue = &h2t(d, lane.lane->nc);
        lane.step_bytes = n;
        const bool fail_wait = faults_.should_fail(Fault::FailDmaWait);
        lane.queue->start({h.to_device ? DmaTransfer{bounce_bus, device_address, n} : DmaTransfer{device_address, bounce_bus, n}});
        if (fail_wait) {
            const std::string message = lane.queue->timed_out().message;
            log_.print(message);
            throw DriverError(ETIMEDOUT, message);
        }
        return;
    }
    lane.queue = nullptr;
}

std::vector<std::vector<NeuronDriver::CopySpan>> NeuronDriver::copy_concurrently(const std::vector<CopyLane>& lanes) {
    std::vector<std::vector<CopySpan>> spans(lanes.size());
    std::vector<LaneProgress> progress(lanes.size());
    std::map<unsigned, uint64_t> lanes_on_device;
    for (size_t i = 0; i < lanes.size(); ++i) {
        LaneProgress& p = progress[i];
        p.lane = &lanes[i];
        p.spans = &spans[i];
        spans[i].resize(lanes[i].copies.size());
        for (const HostCopy& h : lanes[i].copies) {
            const MemChunk& c = chunk(h.handle);
            if (h.offset > c.size || h.size > c.size - h.offset)
                throw DriverError(EINVAL, fmt::format("copy of {} bytes at offset {} outside the {}-byte chunk", h.size,
                                                      h.offset, c.size));
            if (c.device != chunk(lanes[i].copies.front().handle).device)
                throw DriverError(EINVAL, "one lane of copies spans two devices");
        }
        if (lanes[i].copies.empty()) continue;
        p.device = chunk(lanes[i].copies.front().handle).device;
        ++lanes_on_device[p.device];
    }
    // The lanes of one device share its bounce buffer in equal, page-aligned parts.
    const uint64_t page = spec_.chip.driver.min_alloc_bytes;
    std::map<unsigned, uint64_t> next_part;
    for (LaneProgress& p : progress) {
        if (p.lane->copies.empty()) continue;
        const uint64_t part = std::max(page, spec_.chip.driver.dma_bounce_bytes / lanes_on_device[p.device] / page * page);
        p.bounce_pa = at(p.device).bounce_pa + part * next_part[p.device]++;
        p.bounce_bytes = part;
    }

    const double start = host_time::now_s();
    for (LaneProgress& p : progress) start_copy_step(p);
    const auto running = [&] {
        return std::any_of(progress.begin(), progress.end(), [](const LaneProgress& p) { return p.queue != nullptr; });
    };
    while (running()) {
        host_time::advance_s(spec_.chip.driver.dma_poll_interval_s);
        for (LaneProgress& p : progress) {
            if (!p.queue) continue;
            if (p.queue->finished()) {
                const HostCopy& h = p.lane->copies[p.index];
                if (!h.to_device) host_memory_.read(p.bounce_pa, static_cast<uint8_t*>(h.host) + p.done, p.step_bytes);
                p.done += p.step_bytes;
                start_copy_step(p);
            } else if (p.queue->past_timeout()) {
                dma_seconds_ += host_time::now_s() - start;
                const std::string message = p.queue->timed_out().message;
                log_.print(message);
                throw DriverError(ETIMEDOUT, message);
            }
        }
    }
    dma_seconds_ += host_time::now_s() - start;
    return spans;
}

}  // namespace nsim::driver
