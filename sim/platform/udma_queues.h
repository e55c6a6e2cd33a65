// The device side of the UDMA queues: for every DMA engine and queue, a memory-to-memory ring pair
// (M2S = read side, S2M = write side) whose registers live in BAR0. The driver writes 16-byte
// descriptors into ring memory and rings the doorbell by writing a count to a tail-increment
// register; this agent then fetches each TX/RX descriptor pair over the device interconnect, has the
// engine copy the bytes, and advances the head registers when the copy has finished in simulated
// time. There are no interrupts: software learns of completion by polling memory it asked the engine
// to write (driver.md 7).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "config/host_spec.h"
#include "platform/dma_engine.h"
#include "platform/register_file.h"

namespace nsim::sim {

class UdmaQueues : public sc_core::sc_module {
public:
    // Descriptor fetches: bind to the device interconnect.
    tlm_utils::simple_initiator_socket<UdmaQueues> descriptor_port;

    enum class Side { M2S, S2M };

    UdmaQueues(sc_core::sc_module_name name, const config::ChipSpec& chip, RegisterFile& registers,
               const std::vector<std::unique_ptr<DmaEngine>>& engines);

    // BAR0 offset of register `reg` (an offset inside a queue block) of engine/queue/side.
    uint64_t register_offset(unsigned engine, unsigned queue, Side side, uint32_t reg) const;

    // Pairs copied and pairs refused (bad descriptor, stale phase, bus error), for tests and stats.
    uint64_t pairs_completed() const { return pairs_completed_; }
    uint64_t pairs_failed() const { return pairs_failed_; }

private:
    struct Ring {
        uint32_t head = 0;
        uint32_t tail = 0;
        uint32_t laps = 0;        // wraps of head, which give the expected descriptor phase
        uint32_t pending = 0;     // descriptors made valid by the doorbell and not yet consumed
    };
    struct Queue {
        Ring ring[2];             // indexed by Side
        bool aborted = false;
    };
    struct Engine {
        std::vector<Queue> queues;
        sc_core::sc_event kick;
        sc_core::sc_time busy_until = sc_core::SC_ZERO_TIME;
        unsigned next_queue = 0;  // round-robin between queues
        // How long the pair now moving takes to copy: the next pair's descriptors are fetched
        // meanwhile. Zero when the engine went idle (nothing was prefetched).
        sc_core::sc_time prefetch_window = sc_core::SC_ZERO_TIME;
    };
    struct Descriptor {
        uint32_t len_ctrl = 0;
        uint64_t buffer = 0;
    };

    void hook_queue(unsigned engine, unsigned queue);
    void step(unsigned engine);
    // Copies the next TX/RX pair of a queue; returns when the engine is free again.
    sc_core::sc_time run_pair(unsigned engine, unsigned queue);
    bool fetch(unsigned engine, unsigned queue, Side side, Descriptor* out, sc_core::sc_time& delay);
    uint64_t ring_base(unsigned engine, unsigned queue, Side side) const;
    uint32_t ring_length(unsigned engine, unsigned queue, Side side) const;
    void advance(unsigned engine, unsigned queue, Side side);

    const config::RegisterMapSpec map_;
    RegisterFile& registers_;
    const std::vector<std::unique_ptr<DmaEngine>>& dma_;
    std::vector<std::unique_ptr<Engine>> engines_;
    uint64_t pairs_completed_ = 0;
    uint64_t pairs_failed_ = 0;
};

}  // namespace nsim::sim
