// The state of one EngineScheduler run and the steps that advance it (engine_scheduler.h explains
// the design). Private to the scheduler: its parts live in engine_run.cpp (construction, the turn,
// issuing, the run's life), engine_run_dma.cpp (DMA bursts over shared resources),
// engine_run_collectives.cpp (collectives, send/recv, barriers) and engine_run_statistics.cpp
// (statistics and the deadlock report).
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/cost_model.h"
#include "core/engine_scheduler.h"
#include "core/event_queue.h"
#include "core/semantics/functional.h"

namespace nsim::sim::core {

struct EngineRun {
    // Simulator granularity, not a hardware figure: a DMA reserves the shared resources it crosses
    // burst by burst at the burst's own simulated time, so concurrent DMAs interleave on them.
    static constexpr uint64_t kBurstBytes = uint64_t(1) << 16;

    // Events between two ExecutionOptions::progress calls: rare enough to cost nothing next to the
    // events themselves, frequent enough for a progress bar even in functional runs, where one
    // instruction can take a hundred microseconds of host time.
    static constexpr uint64_t kEventsPerProgressReport = 256;

    // The engines count simulated time in picoseconds, SystemC in its time resolution: the two must agree.
    static sc_core::sc_time at_ps(uint64_t ps) { return sc_core::sc_time::from_value(ps); }
    static uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
    static uint64_t to_ps(double seconds) { return uint64_t(std::llround(seconds * 1e12)); }

    enum class State : uint8_t { Ready, Waiting, Busy, Rendezvous, Done };

    struct Leg {
        BandwidthModel* model = nullptr;
        uint64_t bytes = 0;
        uint64_t sent = 0;
    };

    // The shared resources one transfer crosses and how many of its bytes each carries.
    struct Path {
        std::array<Leg, 6> legs{};  // the most a path crosses: DMA engine, DMA fabric, two memories, PCIe up and down
        size_t leg_count = 0;
        void add(BandwidthModel* model, uint64_t bytes) {
            if (model && bytes) legs[leg_count++] = Leg{model, bytes, 0};
        }
    };

    // A DMA in progress: its path, how far it has got, and when its last byte has arrived.
    struct Transfer : Path {
        uint64_t total = 0, moved = 0, end = 0;
    };

    struct Queue {
        uint32_t core = 0;  // program core
        const isa::InstructionStream* stream = nullptr;
        isa::Engine engine = isa::Engine::Pe;
        uint8_t number = 0;
        State state = State::Ready;
        bool in_wait_list = false;
        size_t next = 0;
        uint64_t started = 0;      // current instruction's issue time
        uint64_t wait_since = 0;
        uint64_t last_matmul_end = UINT64_MAX;
        TensorEngineState pe;
        double ps_per_cycle = 0;
        BandwidthModel* dma_engine = nullptr;
        uint32_t track = 0;
        uint64_t busy_ps = 0, wait_ps = 0, instructions = 0, bytes = 0;
        uint64_t hbm_read = 0, hbm_write = 0;  // device-memory bytes its DMAs and collectives read and wrote
        // The byte counters when the current instruction issued: its trace slice's traffic is the difference.
        uint64_t bytes_at_issue = 0, hbm_read_at_issue = 0, hbm_write_at_issue = 0;
        bool dma_busy = false;     // counted in its core's dma_busy_queues until its next wake-up
        std::string name;
        bool bursting = false;     // its next step moves the next burst of `transfer`
        Transfer transfer;
        // Hazards of compute queues (engine_run_hazards.cpp): the engine's previous non-control
        // instruction and when its results are visible; whether the engine takes turns with others
        // on the core's SBUF / PSUM port.
        const isa::Instruction* last_issued = nullptr;
        uint64_t last_visible = 0;
        bool shares_sbuf_port = false, shares_psum_port = false;
    };

    // One copy of the program's device region as a core reaches it.
    struct RegionCopy {
        TimedMemory* channel = nullptr;
        uint64_t offset = 0;
    };

    struct Core {
        PhysicalCore physical;
        NeuronDevice* device = nullptr;
        RegionCopy home, weights;  // its device's home copy; the copy in its own channel, for weights
        const RegionCopy& copy_of(const isa::TensorInfo& t) const {
            return t.role == isa::TensorRole::Weight ? weights : home;
        }
        MemorySpaces spaces;
        std::vector<uint32_t> semaphores;
        // Queues blocked on one of this core's semaphores, with what they wait for: a semaphore change
        // checks these without touching the queues or their instructions (it is most of what a
        // 32-core run's engines do).
        struct Waiter {
            uint32_t queue;
            uint16_t semaphore;
            uint32_t value;
        };
        std::vector<Waiter> waiting;
        // Time at least one of its DMA queues was busy (the union of their busy times), and how many are.
        uint32_t dma_busy_queues = 0;
        uint64_t dma_busy_since = 0, dma_active_ps = 0;
        // Until when an engine holds the SBUF / PSUM port shared by the engines of
        // sbuf_shared_port_engines / psum_shared_port_engines.
        uint64_t sbuf_port_busy_until = 0, psum_port_busy_until = 0;
    };

    struct Arrival {
        uint32_t queue;
        uint64_t time;
    };
    using RendezvousKey = std::array<uint32_t, 5>;

    Platform& platform;
    const isa::Container& program;
    ProgramPlacement placement;
    // What the queues run: the streams fetched from device memory when the placement has their code
    // (instruction_fetch.h), else the program's own.
    std::vector<isa::InstructionStream> fetched;
    const std::vector<isa::InstructionStream>* streams = &program.streams;
    ExecutionOptions options;
    CostModel cost;
    std::vector<Core> cores;
    std::vector<Queue> queues;
    // Queue i's process and the event that triggers it (its turn has come). sc_events do not move,
    // hence not in Queue.
    std::unique_ptr<sc_core::sc_event[]> wakes;
    std::vector<sc_core::sc_process_handle> processes;
    std::map<RendezvousKey, std::vector<Arrival>> rendezvous;
    std::map<RendezvousKey, uint32_t> rendezvous_counts;
    TraceRecorder trace;
    uint64_t dma_overhead_ps = 0;
    uint64_t collective_bytes = 0;

    // The run in progress.
    uint32_t iterations = 1;
    uint32_t iteration = 0;
    uint64_t iteration_start = 0, end = 0;
    size_t finished = 0;  // queues done with the current iteration
    EventQueue events;  // what resumes next, and when
    bool over = false;
    std::exception_ptr failure;
    std::vector<double> iteration_s;
    std::vector<MarkTime> marks;

    // Tells options.progress how many instructions have issued, every kEventsPerProgressReport events.
    struct ProgressReporter {
        const EngineRun& impl;
        uint64_t total = 0, events = 0;
        explicit ProgressReporter(const EngineRun& i) : impl(i) {
            for (const Queue& q : impl.queues) total += q.stream->instructions.size();
            total *= std::max<uint32_t>(1, impl.options.iterations);
        }
        void after_event() {
            if (!impl.options.progress || ++events % kEventsPerProgressReport != 0) return;
            uint64_t issued = 0;
            for (const Queue& q : impl.queues) issued += q.instructions;
            impl.options.progress(issued, total);
        }
    };
    std::optional<ProgressReporter> progress;

    EngineRun(Platform& p, const isa::Container& c, const ProgramPlacement& pl, ExecutionOptions o);

    // ---- time bookkeeping -----------------------------------------------------------------------

    uint64_t cycles_to_ps(const Queue& q, uint64_t cycles) const {
        return uint64_t(std::llround(double(cycles) * q.ps_per_cycle));
    }

    std::string where(const Queue& q) const;

    // Runs `body` (functional work) and turns what it throws into a RunError naming the instruction.
    template <class Body>
    void functional(const Queue& q, Body&& body) {
        if (options.functional) check(q, body);
    }
    // The same in timing runs as well.
    template <class Body>
    void check(const Queue& q, Body&& body) {
        try {
            body();
        } catch (const std::exception& e) {
            throw RunError(fmt::format("{}: {}", where(q), e.what()));
        }
    }

    // ---- the turn -------------------------------------------------------------------------------
    // One queue's process runs at a time: the one whose wake-up is first in `events`. It takes its
    // step (issues its next instruction, or moves the next burst of its DMA), which schedules what
    // comes of it, and then passes the turn on: it makes visible the signals due before the next
    // wake-up and triggers that wake-up's process through its sc_event, at the wake-up's time.

    // The process of queue `qi`, triggered by its sc_event: it has the turn.
    void take_turn(uint32_t qi);

    void pass_turn(uint32_t me);

    void step(uint32_t qi, uint64_t now);

    // ---- issuing --------------------------------------------------------------------------------

    void issue(uint32_t qi, uint64_t now);

    // ---- hazards of compute instructions (engine_run_hazards.cpp) ----------------------------------

    // Whether queue q's engine is one of the core's engines that share its SBUF / PSUM port.
    void find_shared_ports(Queue& q) const;
    // The earliest compute instruction `inst` of queue q may start, from `now`: once the results of
    // its engine's previous instruction that it reads are visible, and once the shared SBUF/PSUM
    // ports it needs are free.
    uint64_t hazard_free_at(const Queue& q, const isa::Instruction& inst, uint64_t now) const;
    // `inst` issued: it holds its engine's shared ports until `free`, its results are
    // visible at `visible`.
    void note_issue(Queue& q, const isa::Instruction& inst, uint64_t free, uint64_t visible);

    // The queue's current instruction occupied it until `free`; its results are visible at `visible`.
    void finish(uint32_t qi, uint64_t free, uint64_t visible);

    // A DMA queue's instruction starts occupying it now (busy_from), and its wake-up after it (idle_at):
    // the core's DMA activity is the union of those spans (RunStatistics::dma_active_s).
    void dma_busy_from(Queue& q, uint64_t now);
    void dma_idle_at(Queue& q, uint64_t now);
    // The waiting queue's next instruction issues now; it waited since `since` (trace slice).
    void waited(const Queue& q, WaitKind kind, uint64_t since, uint64_t now);

    void change_semaphore(uint32_t core_index, uint32_t semaphore, uint32_t value, uint64_t now);

    RegionCopy region_copy(const DeviceRegion& region);

    // ---- DMA ------------------------------------------------------------------------------------

    // The shared resource an operand's bytes cross, besides the DMA engine itself.
    BandwidthModel* resource_of(const Core& core, const isa::AccessPattern& ap, bool reading);

    // A DMA: the fixed overhead, then its bytes burst by burst (dma_burst), each reserving every
    // resource on the path at the burst's own time. The engine processes one descriptor per
    // contiguous run (contiguous_runs: at least one per SBUF partition, one per row for a gather,
    // which reads its indices too): that time occupies the engine like the bytes it could have
    // moved meanwhile (dma_descriptor_s x dma_engine_bytes_per_s).
    void start_dma(uint32_t qi, const isa::Instruction& inst, uint64_t now);

    // The next burst starts when the slowest resource of the path can take it.
    void dma_burst(uint32_t qi, uint64_t now);

    // ---- collectives, send/recv, barrier ----------------------------------------------------------

    // The k-th collective a core issues for a group meets the k-th of every other member; a send
    // meets the receiver's k-th recv from that sender on that channel.
    void arrive(uint32_t qi, const isa::Instruction& inst, uint64_t now);

    // One core-to-core transfer of `bytes`: what it crosses and how many of its bytes each carries.
    struct Hop {
        BandwidthModel* dma_engine = nullptr;  // the sender's engine that moves it
        uint32_t to_core = 0;
        uint64_t bytes = 0;
        bool reduces = false;  // the receiver adds it to its own share: one more read of that (2 reads, 1 write)
    };
    // The resources of `hop` from `sender`, reserved from `ready`; returns when it has arrived. The
    // bytes (and the device memory they read and write) count for `credited`.
    uint64_t core_to_core(const Queue& sender, const Hop& hop, uint64_t ready, Queue& credited);

    BandwidthModel* link_between(unsigned a, unsigned b);
    // DMA engine `index` (mod the core's engines) of program core `core`.
    BandwidthModel* dma_engine_of(uint32_t core, uint32_t index);

    void meet(std::vector<Arrival>& met, uint64_t now);

    // The ring of a group (collective_ring.h): position -> index into `met` (sorted by core). Kept
    // per group, as the cores do not move during a run.
    const std::vector<uint32_t>& ring_of(const std::vector<Arrival>& met);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> rings;

    // Ring algorithm (chips/*.yaml explains it): collective_rings rings at once, each carrying its
    // part of the data; in each step every rank sends one share to its neighbour on each ring.
    uint64_t ring(const std::vector<Arrival>& met, const isa::Instruction& inst, uint64_t now);

    // ---- the run ----------------------------------------------------------------------------------

    std::string semaphore_name(uint32_t index) const;

    std::string deadlock_report(uint64_t now) const;

    void start_iteration(uint64_t now);

    // Nothing is left to happen: the iteration ended, or the run deadlocked.
    void settle();

    void fail(std::exception_ptr error);

    // Ends the run from inside the simulation (sc_start returns to run()) and its processes, so that
    // none of them runs again. The calling process goes last: killing itself unwinds it.
    void stop();

    struct Counters {
        uint64_t memory = 0, pcie = 0, links = 0;
    };

    Counters counters() const;

    // Spawns the queues' processes and runs the simulation until they all finished every iteration,
    // deadlocked or failed.
    void simulate();

    RunStatistics run();
};

}  // namespace nsim::sim::core
