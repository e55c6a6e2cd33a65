// Records what the engine queues did during a run - one slice per executed instruction, one per wait
// of a queue's next instruction (for its semaphore, or for the other cores of a collective) - and
// writes them as a Chrome trace (trace_writer.h): one process per program core, one thread (track)
// per engine queue. Instruction slices carry the instruction (index, iteration, its operands as the
// assembler writes them) and, for DMAs and collectives, the bytes moved and the device-memory bytes
// read and written. Each core also gets two counter tracks, "DMA GB/s" and "HBM GB/s" (read,
// write), sampled in kCounterSamples steps over the traced span: each transfer's bytes are spread
// evenly over the time its data moved (from the end of its fixed overhead to its end), so the
// counters integrate to the bytes of the slices.
//
// Slices are kept compact in memory during the run (the engines' hot path only appends) and turned
// into text only when written, straight to the stream.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trace_writer.h"
#include "isa/container.h"

namespace nsim::isa {
class InstructionPrinter;
}

namespace nsim::sim::core {

// Bytes one instruction moved (DMA, gather, collective share, send).
struct SliceTraffic {
    uint64_t bytes = 0;               // what the queue moved
    uint64_t hbm_read_bytes = 0;      // of which read from device memory
    uint64_t hbm_write_bytes = 0;     // and written to it
    uint64_t data_start_ps = 0;       // when its data began to move (after the DMA's fixed overhead)
};

enum class WaitKind : uint8_t { Semaphore, Peers };

class TraceRecorder {
public:
    // Counter samples per counter track over the traced span: fine enough to see phases, few enough
    // to keep a long run's counters to a few hundred kilobytes.
    static constexpr size_t kCounterSamples = 2000;

    // `program` names tensors and semaphores in the slices' operands; it must outlive the recorder.
    explicit TraceRecorder(const isa::Container* program = nullptr) : program_(program) {}

    // Declares the track of one engine queue; returns its id for the record calls.
    uint32_t add_track(uint32_t core, const std::string& core_label, const isa::InstructionStream& stream);
    // Instruction `instruction` of the track's stream occupied its queue from start for duration.
    void record(uint32_t track, uint32_t instruction, uint32_t iteration, uint64_t start_ps, uint64_t duration_ps,
                const SliceTraffic* traffic = nullptr);
    // The track's instruction `instruction` could not issue from start to end: it waited.
    void record_wait(uint32_t track, WaitKind kind, uint32_t instruction, uint32_t iteration, uint64_t start_ps,
                     uint64_t end_ps);

    size_t slices() const { return instruction_slices_; }  // instruction slices (not waits)
    // The trace as JSON (tests read it); write() and write_to() never build it.
    nlohmann::json to_json() const;
    // A whole trace file of this run alone.
    void write(std::ostream& out) const;
    // This run's tracks, slices and counters into a trace shared with others (the host's slices).
    void write_to(TraceWriter& writer) const;

private:
    struct Track {
        uint32_t core;
        std::string core_label;
        std::string name;
        const isa::InstructionStream* stream;
    };
    struct Slice {
        uint64_t start_ps, duration_ps;
        uint32_t track, instruction, iteration;
        int32_t traffic;  // index into traffic_, -1: none
        bool wait;
        WaitKind wait_kind;
    };
    void write_counters(TraceWriter& writer, const std::vector<TraceTrack>& tracks) const;
    std::string slice_args(const Slice& s, const isa::InstructionPrinter* printer) const;

    const isa::Container* program_;
    std::vector<Track> tracks_;
    std::vector<Slice> slices_;
    std::vector<SliceTraffic> traffic_;
    size_t instruction_slices_ = 0;
};

}  // namespace nsim::sim::core
