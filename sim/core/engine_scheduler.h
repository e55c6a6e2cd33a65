// The NeuronCore engines executing a placed program: every engine queue of every program core (PE,
// ACT, DVE, POOL, SP and the DMA queues) runs its instruction stream in order, waits on and signals
// semaphores, and its DMAs and collectives move bytes through the device's shared DMA engines,
// memory channels, PCIe link and NeuronLinks. Overlap, stalls and contention come out of that.
//
// Design. Each engine queue is a SystemC process (an SC_METHOD spawned by run()) triggered by its
// own sc_event, and SystemC time is the engines' clock. A run keeps one time-ordered list of what
// happens next (event_queue.h): queue wake-ups (an issue, a DMA burst, the end of a wait) and
// semaphore changes becoming visible. Exactly one queue's process runs at a time, the one holding
// the turn: it takes its step - issues its next instruction (waits when its semaphore wait does not
// hold yet; a compute instruction occupies it for its cost, its signal visible after the latency), or
// moves its DMA's next burst, reserving the shared BandwidthModels at that burst's time, or meets
// the other members of a collective - which schedules what follows, and then passes the turn on: it
// makes visible the signals due before the next wake-up and triggers that wake-up's process through
// its sc_event, at that wake-up's SystemC time (immediately when it is due now). The rest of the
// platform's SystemC activity runs in between as usual. Host software calls run() between sc_start
// calls: run() spawns the processes and calls sc_start() until the run is over; the process that
// ends it (last iteration done, deadlock = the list ran empty with a queue unfinished, or an error)
// pauses the simulation and kills the run's processes, itself last, so none runs again.
//
// Why the turn and the list, rather than each process simply wait()ing: SystemC leaves the order of
// processes woken at the same time unspecified (its timed-event heap breaks ties arbitrarily), and
// that order decides who gets a DMA engine or a memory channel first. Measured with each queue a
// free-running SC_THREAD: the hand-scheduled 1024^3 GEMM took 29.18 us instead of 27.09 us (tensor
// engine 80.5% busy instead of 86.6%: its loads need first-issued-first-served), bert.bin on
// inf1.2xlarge 54.153 ms instead of 54.150 ms. With same-time wake-ups first-scheduled-first, every
// run is deterministic and times, traces and statistics are those of the event-queue engines this
// replaced (bert.bin's trace is byte-identical).
//
// Why SC_METHODs rather than SC_THREADs: with the same code around them, engine-throughput
// --iterations 30 ran 3.1-3.2 M instructions per host second with one SC_THREAD per queue and
// 4.0-4.2 M with SC_METHODs (both before the queues went back into a vector);
// a 12-process turn-passing micro-benchmark costs 67 ns per handover between threads (a coroutine
// switch) and 21 ns between methods. Methods also need no coroutine stacks for functional
// semantics and progress callbacks. engine-throughput now runs 3.7-3.9 M instructions per host
// second with its defaults (the event queue alone, before: 5.1-5.2 M) and 4.8-5.4 M with
// --iterations 30 (before: 7.7-8.0 M); the difference is what SystemC's notifications and method
// activations cost. bert.bin's engines on inf1.2xlarge: 0.17 s of host time (before: 0.13 s).
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
    uint32_t graph = 0;       // the program's graph to run (isa::Container::graphs; 0: the only one, or the first)
    // Timing only: simulate program cores 0 .. simulated_cores - 1 alone (0: every core); the other
    // cores' streams are left out, and the statistics are those of the simulated cores. For a caller
    // that knows the others run the same streams on their own devices and takes their time to be the
    // simulated ones' (driver/runtime/replicated_devices.h).
    uint32_t simulated_cores = 0;
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

struct EngineRun;  // engine_run.h

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
    std::unique_ptr<EngineRun> run_;
};

}  // namespace nsim::sim::core
