// The NeuronCore engines executing a placed program: every engine queue of every program core (PE,
// ACT, DVE, POOL, SP and the DMA queues) runs its instruction stream in order, waits on and signals
// semaphores, and its DMAs and collectives move bytes through the device's shared DMA engines,
// memory channels, PCIe link and NeuronLinks. Overlap, stalls and contention come out of that.
//
// Each engine queue is a SystemC thread (sc_spawn) that runs its stream in order: it sleeps on its
// sc_event while it waits for a semaphore, for the other members of a collective, or while an
// instruction or a DMA burst occupies it, and SystemC time is the engines' clock. SystemC leaves the
// order of processes woken at the same time unspecified, and that order decides who gets a shared
// resource first (a DMA engine, a memory channel); so the run keeps its wake-ups and semaphore
// signals in one time-ordered list (event_queue.h, same-time entries first-scheduled first) and one
// queue process runs at a time: the one holding the turn, which it passes on to the next wake-up.
// host software calls run() between sc_start calls; run() spawns the processes and runs the
// simulation until they have all returned (finished, deadlocked or failed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/program_placement.h"
#include "core/run_statistics.h"
#include "core/trace_recorder.h"
#include "isa/container.h"
#include "platform/platform.h"

namespace nsim::sim::core {

struct ExecutionOptions {
    bool functional = false;  // compute real values; off: timing only, no data is touched
    bool trace = false;       // record one slice per instruction (trace())
    uint32_t iterations = 1;  // run the program this many times back to back, semaphores reset between
    // Called every so many simulation events of run() with the instructions issued so far and the
    // run's total (all iterations), so that a tool can show how far one long execution has got.
    std::function<void(uint64_t issued, uint64_t total)> progress;
};

// Every unfinished queue waits (on a semaphore or for peers of a collective) and nothing is in
// flight. what() is the report: its first line says so, then one line per queue with its pending
// instruction, then the semaphore values.
class DeadlockError : public RunError {
public:
    using RunError::RunError;
};

class EngineScheduler {
public:
    // The program must have been placed (place_program) on this platform; functional runs also
    // need its tensors loaded (load_tensors). The platform must have finished elaboration.
    EngineScheduler(Platform& platform, const isa::Container& program, const ProgramPlacement& placement,
                    ExecutionOptions options);
    ~EngineScheduler();

    // Runs every iteration to completion. Throws DeadlockError, or RunError when an instruction
    // cannot be carried out (functional mode).
    RunStatistics run();
    const TraceRecorder& trace() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nsim::sim::core
