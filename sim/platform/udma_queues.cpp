#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "platform/udma_queues.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "platform/blocking_access.h"

namespace nsim::sim {
namespace {

constexpr unsigned index_of(UdmaQueues::Side side) { return side == UdmaQueues::Side::M2S ? 0 : 1; }

}  // namespace

UdmaQueues::UdmaQueues(sc_core::sc_module_name name, const config::ChipSpec& chip, RegisterFile& registers,
                       const std::vector<std::unique_ptr<DmaEngine>>& engines)
    : sc_core::sc_module(name), descriptor_port("descriptor_port"), map_(chip.registers), registers_(registers),
      dma_(engines) {
    if (!map_.present) throw std::invalid_argument(fmt::format("chip {} has no register map", chip.name));
    for (unsigned e = 0; e < dma_.size(); ++e) {
        engines_.push_back(std::make_unique<Engine>());
        engines_.back()->queues.resize(dma_[e]->queues());
        for (unsigned q = 0; q < dma_[e]->queues(); ++q) hook_queue(e, q);
        sc_core::sc_spawn_options options;
        options.spawn_method();
        options.dont_initialize();
        options.set_sensitivity(&engines_.back()->kick);
        sc_core::sc_spawn([this, e] { step(e); }, fmt::format("engine{}", e).c_str(), &options);
    }
}

uint64_t UdmaQueues::register_offset(unsigned engine, unsigned queue, Side side, uint32_t reg) const {
    const config::UdmaRegisterSpec& u = map_.udma;
    return u.base + engine * u.engine_stride + (side == Side::S2M ? u.s2m : 0) + u.queues + queue * u.queue_stride + reg;
}

void UdmaQueues::hook_queue(unsigned engine, unsigned queue) {
    for (Side side : {Side::M2S, Side::S2M}) {
        // Programming the ring base (re)starts the queue from descriptor 0 of its first lap.
        registers_.on_write(register_offset(engine, queue, side, map_.udma.ring_base_lo), [this, engine, queue, side](uint32_t) {
            Queue& q = engines_[engine]->queues[queue];
            q.ring[index_of(side)] = Ring{};
            q.aborted = false;
            registers_.poke(register_offset(engine, queue, side, map_.udma.head), 0);
            registers_.poke(register_offset(engine, queue, side, map_.udma.tail), 0);
        });
        registers_.on_write(register_offset(engine, queue, side, map_.udma.tail_increment), [this, engine, queue, side](uint32_t n) {
            Ring& ring = engines_[engine]->queues[queue].ring[index_of(side)];
            const uint32_t length = ring_length(engine, queue, side);
            if (length == 0) return;
            ring.tail = (ring.tail + n) % length;
            ring.pending += n;
            registers_.poke(register_offset(engine, queue, side, map_.udma.tail), ring.tail);
            engines_[engine]->kick.notify(sc_core::SC_ZERO_TIME);
        });
    }
}

uint64_t UdmaQueues::ring_base(unsigned engine, unsigned queue, Side side) const {
    const uint64_t lo = registers_.peek(register_offset(engine, queue, side, map_.udma.ring_base_lo));
    const uint64_t hi = registers_.peek(register_offset(engine, queue, side, map_.udma.ring_base_hi));
    return hi << 32 | lo;
}

uint32_t UdmaQueues::ring_length(unsigned engine, unsigned queue, Side side) const {
    return registers_.peek(register_offset(engine, queue, side, map_.udma.ring_length));
}

void UdmaQueues::step(unsigned engine) {
    Engine& en = *engines_[engine];
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now < en.busy_until) {
        next_trigger(en.busy_until - now);
        return;
    }
    const unsigned queues = unsigned(en.queues.size());
    for (unsigned i = 0; i < queues; ++i) {
        const unsigned q = (en.next_queue + i) % queues;
        Queue& queue = en.queues[q];
        if (queue.aborted || queue.ring[0].pending == 0 || queue.ring[1].pending == 0) continue;
        en.next_queue = (q + 1) % queues;
        const sc_core::sc_time busy = run_pair(engine, q);
        en.busy_until = now + busy;
        next_trigger(busy);
        return;
    }
    en.prefetch_window = sc_core::SC_ZERO_TIME;
    next_trigger(en.kick);
}

bool UdmaQueues::fetch(unsigned engine, unsigned queue, Side side, Descriptor* out, sc_core::sc_time& delay) {
    const config::DescriptorFormatSpec& format = map_.descriptor;
    const Ring& ring = engines_[engine]->queues[queue].ring[index_of(side)];
    std::vector<uint8_t> bytes(format.bytes);
    const uint64_t address = ring_base(engine, queue, side) + uint64_t(ring.head) * format.bytes;
    if (!blocking_access(descriptor_port, tlm::TLM_READ_COMMAND, address, bytes.data(), format.bytes, delay)) return false;
    std::memcpy(&out->len_ctrl, bytes.data(), 4);
    std::memcpy(&out->buffer, bytes.data() + 8, 8);
    // The phase replaces a valid bit: a descriptor left from the previous lap is not new work.
    const uint32_t expected = (format.initial_phase + ring.laps) & format.phase_mask;
    return ((out->len_ctrl >> format.phase_shift) & format.phase_mask) == expected;
}

void UdmaQueues::advance(unsigned engine, unsigned queue, Side side) {
    Ring& ring = engines_[engine]->queues[queue].ring[index_of(side)];
    const uint32_t length = ring_length(engine, queue, side);
    ring.pending -= 1;
    if (++ring.head == length) {
        ring.head = 0;
        ++ring.laps;
    }
    registers_.poke(register_offset(engine, queue, side, map_.udma.head), ring.head);
}

// The queues prefetch descriptors (the queue cfg register's "enable prefetch", driver.md 7): while one
// pair moves, the engine reads the next pair's descriptors, so a pair that follows another straight
// away waits only for what its fetch takes beyond the previous copy; after an idle engine, all of it.
sc_core::sc_time UdmaQueues::run_pair(unsigned engine, unsigned queue) {
    Engine& en = *engines_[engine];
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    Descriptor tx, rx;
    const bool valid = fetch(engine, queue, Side::M2S, &tx, delay) && fetch(engine, queue, Side::S2M, &rx, delay);
    delay = delay > en.prefetch_window ? delay - en.prefetch_window : sc_core::SC_ZERO_TIME;
    const sc_core::sc_time copy_start = delay;
    const uint32_t length_mask = uint32_t(map_.descriptor.max_transfer_bytes() - 1);
    const uint64_t tx_length = (tx.len_ctrl & length_mask) ? (tx.len_ctrl & length_mask) : map_.descriptor.max_transfer_bytes();
    const uint64_t rx_length = (rx.len_ctrl & length_mask) ? (rx.len_ctrl & length_mask) : map_.descriptor.max_transfer_bytes();
    if (!valid || tx_length != rx_length || !dma_[engine]->copy(tx.buffer, rx.buffer, tx_length, delay)) {
        // A broken pair stops the queue until software re-programs it, as an aborted UDMA queue does.
        engines_[engine]->queues[queue].aborted = true;
        ++pairs_failed_;
        return delay;
    }
    advance(engine, queue, Side::M2S);
    advance(engine, queue, Side::S2M);
    ++pairs_completed_;
    en.prefetch_window = delay - copy_start;
    return delay;
}

}  // namespace nsim::sim
