// The NeuronCore engines executing a placed program: every engine queue of every program core (PE,
// ACT, DVE, POOL, SP and the DMA queues) runs its instruction stream in order, waits on and signals
// semaphores, and its DMAs and collectives move bytes through the device's shared DMA engines,
// memory channels, PCIe link and NeuronLinks. Overlap, stalls and contention come out of that.
//
// Why a hand-rolled event queue rather than one SC_THREAD per engine: time advances per
// instruction and per DMA burst, and each of those is a heap push/pop (~100 ns of host time) instead
// of a coroutine switch plus a SystemC timed notification; a deadlock is simply "no event left while a
// queue is unfinished". The queue runs ahead of SystemC time (temporal decoupling, as TLM-2.0
// loosely-timed initiators do) and synchronises SystemC time at the end of every iteration, so the
// rest of the platform sees the run take its simulated time. Shared resources are the platform's own
// BandwidthModels, reserved at each burst's simulated time.
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
