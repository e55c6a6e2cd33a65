#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include "core/engine_scheduler.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "core/collective_data.h"
#include "core/cost_model.h"
#include "core/event_queue.h"
#include "core/instruction_fetch.h"
#include "core/instruction_text.h"
#include "core/semantics/functional.h"

namespace nsim::sim::core {
namespace {

// Simulator granularity, not a hardware figure: a DMA reserves the shared resources it crosses
// burst by burst at the burst's own simulated time, so concurrent DMAs interleave on them.
constexpr uint64_t kBurstBytes = uint64_t(1) << 16;

// Events between two ExecutionOptions::progress calls: rare enough to cost nothing next to the
// events themselves, frequent enough for a progress bar even in functional runs, where one
// instruction can take a hundred microseconds of host time.
constexpr uint64_t kEventsPerProgressReport = 256;

// The engines count simulated time in picoseconds, SystemC in its time resolution: the two must agree.
sc_core::sc_time at_ps(uint64_t ps) { return sc_core::sc_time::from_value(ps); }
uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }
uint64_t to_ps(double seconds) { return uint64_t(std::llround(seconds * 1e12)); }

}  // namespace

struct EngineScheduler::Impl {
    enum class State : uint8_t { Ready, Waiting, Busy, Rendezvous, Done };

    struct Leg {
        BandwidthModel* model = nullptr;
        uint64_t bytes = 0;
        uint64_t sent = 0;
    };

    // The shared resources one transfer crosses and how many of its bytes each carries.
    struct Path {
        std::array<Leg, 5> legs{};  // the most a path crosses: DMA engine, two memories, PCIe up and down
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
        std::string name;
        bool bursting = false;     // its next step moves the next burst of `transfer`
        Transfer transfer;
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
        std::vector<uint32_t> waiting;  // queues blocked on one of this core's semaphores
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

    // Tells options.progress how many instructions have issued, every kEventsPerProgressReport events.
    struct ProgressReporter {
        const Impl& impl;
        uint64_t total = 0, events = 0;
        explicit ProgressReporter(const Impl& i) : impl(i) {
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

    Impl(Platform& p, const isa::Container& c, const ProgramPlacement& pl, ExecutionOptions o)
        : platform(p), program(c), placement(pl), options(o), cost(p.spec().chip.core) {
        if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
            throw std::logic_error("the engines count picoseconds: SystemC's time resolution must be 1 ps");
        dma_overhead_ps = to_ps(cost.dma_overhead_seconds());
        if (!placement.code.empty()) {
            fetched = fetch_streams(program, placement, platform);
            streams = &fetched;
        }
        const config::NeuronCoreSpec& spec = p.spec().chip.core;
        for (uint32_t i = 0; i < placement.cores.size(); ++i) {
            Core core;
            core.physical = placement.cores[i];
            core.device = p.devices().at(core.physical.device).get();
            NeuronCore& nc = *core.device->cores().at(core.physical.core);
            core.spaces.sbuf = &nc.sbuf().storage();
            core.spaces.sbuf_partition_bytes = spec.sbuf.bytes_per_partition;
            core.spaces.psum = &nc.psum().storage();
            core.spaces.psum_partition_bytes = spec.psum.bytes_per_partition;
            core.home = region_copy(placement.region_for(i, isa::TensorRole::Scratch));
            core.weights = region_copy(placement.region_for(i, isa::TensorRole::Weight));
            core.spaces.tensor_location = [this, i](isa::MemorySpace space, uint32_t tensor) {
                const isa::TensorInfo& t = program.tensors.at(tensor);
                if (space == isa::MemorySpace::Host)
                    return TensorLocation{&platform.host_memory().storage(), placement.host_region + t.offset};
                const RegionCopy& copy = cores[i].copy_of(t);
                return TensorLocation{&copy.channel->storage(), copy.offset + t.offset};
            };
            core.semaphores.assign(spec.semaphores, 0);
            cores.push_back(std::move(core));
        }
        for (const isa::InstructionStream& s : *streams) {
            if (s.instructions.empty()) continue;
            if (s.core >= cores.size())
                throw RunError(fmt::format("{}: the program has only {} cores", isa::describe(s), cores.size()));
            if (!cost.has_engine(s.engine))
                throw RunError(fmt::format("{}: {} has no {} engine", isa::describe(s), spec.name, isa::name_of(s.engine)));
            Queue q;
            q.core = s.core;
            q.stream = &s;
            q.engine = s.engine;
            q.number = s.queue;
            q.name = fmt::format("core{}.{}", s.core, isa::queue_name(s.engine, s.queue));
            if (s.engine == isa::Engine::Dma) {
                const Core& core = cores[s.core];
                const unsigned engine = core.physical.core * spec.dma_engines + s.queue % spec.dma_engines;
                q.dma_engine = &core.device->dma_engines().at(engine)->engine_timing();
            } else {
                q.ps_per_cycle = cost.picoseconds_per_cycle(s.engine);
            }
            if (options.trace) {
                const PhysicalCore& pc = cores[s.core].physical;
                q.track = trace.add_track(s.core, fmt::format("core {} (device {} nc {})", s.core, pc.device, pc.core),
                                          isa::queue_name(s.engine, s.queue));
            }
            queues.push_back(std::move(q));
        }
        wakes = std::make_unique<sc_core::sc_event[]>(queues.size());
    }

    // ---- time bookkeeping -----------------------------------------------------------------------

    uint64_t cycles_to_ps(const Queue& q, uint64_t cycles) const {
        return uint64_t(std::llround(double(cycles) * q.ps_per_cycle));
    }

    std::string where(const Queue& q) const {
        const isa::Instruction& inst = q.stream->instructions[q.next];
        return fmt::format("{}, instruction {} ({})", isa::describe(*q.stream), q.next, isa::info(inst.opcode).mnemonic);
    }

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
    void take_turn(uint32_t qi) {
        try {
            pass_turn(qi);
        } catch (const sc_core::sc_unwind_exception&) {
            throw;  // killed: SystemC unwinds the process
        } catch (...) {
            fail(std::current_exception());
        }
    }

    void pass_turn(uint32_t me) {
        for (;;) {
            if (events.empty()) {
                settle();
                continue;
            }
            const Event& next = events.top();
            const uint64_t now = now_ps();
            if (next.time > now || (next.kind == EventKind::Wake && next.a != me)) {
                // Its owner takes it (a signal: this process again), when it is due.
                sc_core::sc_event& wake = wakes[next.kind == EventKind::Wake ? next.a : me];
                if (next.time == now) wake.notify();
                else wake.notify(at_ps(next.time - now));
                return;
            }
            const Event e = events.pop();
            switch (e.kind) {
                case EventKind::Wake: step(e.a, now); break;
                case EventKind::Signal: change_semaphore(e.a, e.b, cores[e.a].semaphores.at(e.b) + 1, now); break;
                case EventKind::SetSemaphore: change_semaphore(e.a, e.b, e.c, now); break;
            }
            progress->after_event();
        }
    }

    void step(uint32_t qi, uint64_t now) {
        if (queues[qi].bursting) dma_burst(qi, now);
        else issue(qi, now);
    }

    // ---- issuing --------------------------------------------------------------------------------

    void issue(uint32_t qi, uint64_t now) {
        Queue& q = queues[qi];
        if (q.state == State::Done) return;
        if (q.next >= q.stream->instructions.size()) {
            q.state = State::Done;
            ++finished;
            return;
        }
        const isa::Instruction& inst = q.stream->instructions[q.next];
        if (inst.sync.wait_semaphore != isa::kNoSemaphore &&
            cores[q.core].semaphores[inst.sync.wait_semaphore] < inst.sync.wait_value) {
            if (q.state != State::Waiting) {
                q.state = State::Waiting;
                q.wait_since = now;
            }
            if (!q.in_wait_list) {
                cores[q.core].waiting.push_back(qi);
                q.in_wait_list = true;
            }
            return;
        }
        if (q.state == State::Waiting) q.wait_ps += now - q.wait_since;
        q.state = State::Busy;
        q.started = now;
        ++q.instructions;

        switch (isa::info(inst.opcode).cost) {
            case isa::CostClass::Dma:
            case isa::CostClass::DmaGather: start_dma(qi, inst, now); return;
            case isa::CostClass::Collective: arrive(qi, inst, now); return;
            default: break;
        }
        if (inst.opcode == isa::Opcode::Barrier) {
            arrive(qi, inst, now);
            return;
        }
        const bool back_to_back = q.last_matmul_end == now;
        const InstructionCost c = cost.compute(inst, q.engine, &q.pe, back_to_back);
        const uint64_t busy = cycles_to_ps(q, c.cycles);
        // A matmul right after the previous one loaded its stationary tile in the background; control
        // instructions that issue without waiting do not interrupt that.
        if (inst.opcode == isa::Opcode::Matmul) q.last_matmul_end = now + busy;
        else if (isa::info(inst.opcode).cost == isa::CostClass::Control && back_to_back) q.last_matmul_end = now + busy;
        else q.last_matmul_end = UINT64_MAX;
        if (is_executed_by_semantics(inst.opcode)) functional(q, [&] { execute(inst, cores[q.core].spaces); });
        if (inst.opcode == isa::Opcode::SemSet)
            events.schedule(now + busy, EventKind::SetSemaphore, q.core, inst.u32(isa::fields::SemSet::sem),
                            inst.u32(isa::fields::SemSet::value));
        finish(qi, now + busy, now + busy + cycles_to_ps(q, c.latency_cycles));
    }

    // The queue's current instruction occupied it until `free`; its results are visible at `visible`.
    void finish(uint32_t qi, uint64_t free, uint64_t visible) {
        Queue& q = queues[qi];
        const isa::Instruction& inst = q.stream->instructions[q.next];
        q.busy_ps += free - q.started;
        if (options.trace) trace.record(q.track, inst.opcode, q.started, free - q.started, uint32_t(q.next), iteration);
        if (inst.sync.signal_semaphore != isa::kNoSemaphore)
            events.schedule(visible, EventKind::Signal, q.core, inst.sync.signal_semaphore);
        ++q.next;
        q.state = State::Ready;
        events.schedule(free, EventKind::Wake, qi);
    }

    void change_semaphore(uint32_t core_index, uint32_t semaphore, uint32_t value, uint64_t now) {
        Core& core = cores[core_index];
        core.semaphores.at(semaphore) = value;
        // Wake every queue of the core whose wait now holds; they re-check when they issue.
        size_t kept = 0;
        for (uint32_t qi : core.waiting) {
            Queue& q = queues[qi];
            const isa::Sync& sync = q.stream->instructions[q.next].sync;
            if (core.semaphores[sync.wait_semaphore] >= sync.wait_value) {
                q.in_wait_list = false;
                events.schedule(now, EventKind::Wake, qi);
            } else {
                core.waiting[kept++] = qi;
            }
        }
        core.waiting.resize(kept);
    }

    RegionCopy region_copy(const DeviceRegion& region) {
        return {platform.devices().at(region.device)->memory_channels().at(region.channel).get(), region.offset};
    }

    // ---- DMA ------------------------------------------------------------------------------------

    // The shared resource an operand's bytes cross, besides the DMA engine itself.
    BandwidthModel* resource_of(const Core& core, const isa::AccessPattern& ap, bool reading) {
        switch (ap.space) {
            case isa::MemorySpace::Dram: return &core.copy_of(program.tensors.at(ap.tensor)).channel->timing();
            case isa::MemorySpace::Host:
                return reading ? &core.device->endpoint().to_device() : &core.device->endpoint().to_host();
            default: return nullptr;  // SBUF/PSUM: the engine's side of the transfer
        }
    }

    // A DMA: the fixed overhead, then its bytes burst by burst (dma_burst), each reserving every
    // resource on the path at the burst's own time. A gather (dma_gather) reads its indices too, and
    // its engine processes one descriptor per row: that time occupies the engine like the bytes it
    // could have moved meanwhile (dma_descriptor_s x dma_engine_bytes_per_s).
    void start_dma(uint32_t qi, const isa::Instruction& inst, uint64_t now) {
        Queue& q = queues[qi];
        const Core& core = cores[q.core];
        const bool gather = inst.opcode == isa::Opcode::DmaGather;
        const isa::AccessPattern& dst = inst.ap(gather ? isa::fields::DmaGather::dst : isa::fields::DmaCopy::dst);
        const isa::AccessPattern* indices = gather ? &inst.ap(isa::fields::DmaGather::indices) : nullptr;
        uint64_t src_bytes = 0, descriptor_bytes = 0;
        if (gather) {
            // Indices in device or host memory are there in timing runs too: an index outside the
            // table fails the execution whether or not values are computed.
            if (indices->space == isa::MemorySpace::Dram || indices->space == isa::MemorySpace::Host)
                check(q, [&] { gather_row_indices(inst, core.spaces); });
            functional(q, [&] { execute(inst, core.spaces); });
            src_bytes = CostModel::operand_bytes(dst);  // the rows read from the table: as many as written
            descriptor_bytes = uint64_t(std::llround(double(dst.partition_count) * cost.core().dma_descriptor_s *
                                                     cost.dma_engine_bytes_per_s()));
        } else {
            functional(q, [&] { copy_elements(dst, inst.ap(isa::fields::DmaCopy::src), core.spaces); });
            src_bytes = CostModel::operand_bytes(inst.ap(isa::fields::DmaCopy::src));
        }
        const isa::AccessPattern& src = gather ? inst.ap(isa::fields::DmaGather::table) : inst.ap(isa::fields::DmaCopy::src);
        const uint64_t dst_bytes = CostModel::operand_bytes(dst);
        Transfer& transfer = q.transfer;
        transfer = Transfer{};
        transfer.total = std::max(src_bytes, dst_bytes);
        transfer.end = now + dma_overhead_ps;
        transfer.add(q.dma_engine, transfer.total + descriptor_bytes);
        transfer.add(resource_of(core, src, true), src_bytes);
        transfer.add(resource_of(core, dst, false), dst_bytes);
        if (indices) transfer.add(resource_of(core, *indices, true), CostModel::operand_bytes(*indices));
        q.bytes += transfer.total;
        q.bursting = true;
        events.schedule(now + dma_overhead_ps, EventKind::Wake, qi);
    }

    // The next burst starts when the slowest resource of the path can take it.
    void dma_burst(uint32_t qi, uint64_t now) {
        Transfer& transfer = queues[qi].transfer;
        const uint64_t burst = std::min(kBurstBytes, transfer.total - transfer.moved);
        transfer.moved += burst;
        const bool last = transfer.moved == transfer.total;
        uint64_t next = now;
        for (size_t l = 0; l < transfer.leg_count; ++l) {
            Leg& leg = transfer.legs[l];
            const uint64_t share =
                last ? leg.bytes - leg.sent
                     : uint64_t((unsigned __int128)leg.bytes * transfer.moved / transfer.total) - leg.sent;
            leg.sent += share;
            const uint64_t arrived = leg.model->transfer(at_ps(now), share).value();
            const uint64_t latency = leg.model->latency().value();
            next = std::max(next, arrived - std::min(arrived, latency));
            transfer.end = std::max(transfer.end, arrived);
        }
        if (!last) {
            events.schedule(next, EventKind::Wake, qi);
            return;
        }
        queues[qi].bursting = false;
        finish(qi, transfer.end, transfer.end);
    }

    // ---- collectives, send/recv, barrier ----------------------------------------------------------

    struct GroupShape {
        uint32_t first = 0, count = 0;
    };

    GroupShape group_of(const isa::Instruction& inst) const {
        switch (inst.opcode) {
            case isa::Opcode::AllReduce:
                return {inst.u32(isa::fields::AllReduce::first_core), inst.u32(isa::fields::AllReduce::core_count)};
            case isa::Opcode::AllGather:
                return {inst.u32(isa::fields::AllGather::first_core), inst.u32(isa::fields::AllGather::core_count)};
            case isa::Opcode::ReduceScatter:
                return {inst.u32(isa::fields::ReduceScatter::first_core),
                        inst.u32(isa::fields::ReduceScatter::core_count)};
            case isa::Opcode::Barrier:
                return {inst.u32(isa::fields::Barrier::first_core), inst.u32(isa::fields::Barrier::core_count)};
            default: return {};
        }
    }

    // The k-th collective a core issues for a group meets the k-th of every other member; a send
    // meets the receiver's k-th recv from that sender on that channel.
    void arrive(uint32_t qi, const isa::Instruction& inst, uint64_t now) {
        Queue& q = queues[qi];
        q.state = State::Rendezvous;
        RendezvousKey key{};
        uint32_t expected = 0;
        if (inst.opcode == isa::Opcode::Send || inst.opcode == isa::Opcode::Recv) {
            const bool sending = inst.opcode == isa::Opcode::Send;
            const uint32_t peer = sending ? inst.u32(isa::fields::Send::peer_core) : inst.u32(isa::fields::Recv::peer_core);
            const uint32_t channel = sending ? inst.u32(isa::fields::Send::channel) : inst.u32(isa::fields::Recv::channel);
            const uint32_t sender = sending ? q.core : peer, receiver = sending ? peer : q.core;
            if (peer >= cores.size() || peer == q.core)
                throw RunError(fmt::format("{}: peer core {} is not another core of the program", where(q), peer));
            const uint32_t seq = rendezvous_counts[{sending ? 2u : 3u, sender, receiver, channel, 0}]++;
            key = {2, sender, receiver, channel, seq};
            expected = 2;
        } else {
            const GroupShape g = group_of(inst);
            if (q.core < g.first || q.core >= uint64_t(g.first) + g.count || uint64_t(g.first) + g.count > cores.size())
                throw RunError(fmt::format("{}: core {} is not in the group of cores {} to {}", where(q), q.core, g.first,
                                           uint64_t(g.first) + g.count - 1));
            const uint32_t kind = inst.opcode == isa::Opcode::Barrier ? 1 : 0;
            const uint32_t seq = rendezvous_counts[{kind, q.core, g.first, g.count, 1}]++;
            key = {kind, g.first, g.count, seq, 0};
            expected = g.count;
        }
        std::vector<Arrival>& members = rendezvous[key];
        members.push_back({qi, now});
        if (members.size() < expected) return;
        std::vector<Arrival> met = std::move(members);
        rendezvous.erase(key);
        meet(met, now);
    }

    // The resources one core-to-core step of `bytes` crosses, reserved from `ready`; returns when it
    // has arrived.
    uint64_t core_to_core(const Queue& sender, uint32_t to_core, uint64_t bytes, uint64_t ready) {
        const Core& from = cores[sender.core];
        const Core& to = cores[to_core];
        Path path;
        path.add(sender.dma_engine, bytes);
        // Staged through the device memory next to each core.
        BandwidthModel* from_memory = &from.weights.channel->timing();
        BandwidthModel* to_memory = &to.weights.channel->timing();
        if (from_memory == to_memory) {
            path.add(from_memory, 2 * bytes);  // read and write in the same memory
        } else {
            path.add(from_memory, bytes);
            path.add(to_memory, bytes);
        }
        if (from.device != to.device) {
            BandwidthModel* link = link_between(from.physical.device, to.physical.device);
            if (link) {
                path.add(link, bytes);
            } else {
                path.add(&from.device->endpoint().to_host(), bytes);
                path.add(&to.device->endpoint().to_device(), bytes);
            }
        }
        uint64_t arrived = ready;
        for (size_t l = 0; l < path.leg_count; ++l)
            arrived = std::max<uint64_t>(arrived, path.legs[l].model->transfer(at_ps(ready), path.legs[l].bytes).value());
        collective_bytes += bytes;
        return arrived;
    }

    BandwidthModel* link_between(unsigned a, unsigned b) {
        for (const auto& link : platform.links()) {
            if (link->device_a() == a && link->device_b() == b) return &link->a_to_b();
            if (link->device_a() == b && link->device_b() == a) return &link->b_to_a();
        }
        return nullptr;
    }

    void meet(std::vector<Arrival>& met, uint64_t now) {
        const Queue& first = queues[met.front().queue];
        const isa::Instruction& inst = first.stream->instructions[first.next];
        uint64_t end = now;
        if (inst.opcode == isa::Opcode::Barrier) {
            end = now + cycles_to_ps(first, cost.core().control_instruction_cycles);
        } else if (inst.opcode == isa::Opcode::Send || inst.opcode == isa::Opcode::Recv) {
            const bool first_sends = inst.opcode == isa::Opcode::Send;
            const Queue& sender = first_sends ? first : queues[met.back().queue];
            const Queue& receiver = first_sends ? queues[met.back().queue] : first;
            const isa::Instruction& send = sender.stream->instructions[sender.next];
            const isa::Instruction& recv = receiver.stream->instructions[receiver.next];
            if (send.opcode != isa::Opcode::Send || recv.opcode != isa::Opcode::Recv)
                throw RunError(fmt::format("{}: meets {} instead of recv", where(sender), isa::info(recv.opcode).mnemonic));
            functional(sender, [&] {
                run_send_recv({&send, &cores[sender.core].spaces}, {&recv, &cores[receiver.core].spaces});
            });
            const uint64_t bytes = CostModel::operand_bytes(send.ap(isa::fields::Send::src));
            end = core_to_core(sender, receiver.core, bytes, now + dma_overhead_ps);
            queues[met.front().queue].bytes += bytes;
        } else {
            std::sort(met.begin(), met.end(),
                      [&](const Arrival& a, const Arrival& b) { return queues[a.queue].core < queues[b.queue].core; });
            std::vector<CollectiveRank> ranks;
            for (const Arrival& a : met) {
                const Queue& q = queues[a.queue];
                const isa::Instruction& mine = q.stream->instructions[q.next];
                if (mine.opcode != inst.opcode)
                    throw RunError(fmt::format("{}: meets {} of core {}", where(q), isa::info(inst.opcode).mnemonic,
                                               first.core));
                ranks.push_back({&mine, &cores[q.core].spaces});
            }
            functional(first, [&] { run_collective(ranks); });
            end = ring(met, inst, now);
        }
        for (const Arrival& a : met) {
            Queue& q = queues[a.queue];
            q.wait_ps += now - a.time;  // waiting for the peers is not work
            q.started = now;
            finish(a.queue, end, end);
        }
    }

    // Ring algorithm: in each step every rank sends one share to the next rank, all at once.
    uint64_t ring(const std::vector<Arrival>& met, const isa::Instruction& inst, uint64_t now) {
        const uint64_t n = met.size();
        size_t src_field = isa::fields::ReduceScatter::src;
        if (inst.opcode == isa::Opcode::AllReduce) src_field = isa::fields::AllReduce::src;
        if (inst.opcode == isa::Opcode::AllGather) src_field = isa::fields::AllGather::src;
        const uint64_t bytes = CostModel::operand_bytes(inst.ap(src_field));
        uint64_t steps = 0, share = 0;
        if (inst.opcode == isa::Opcode::AllReduce) steps = 2 * (n - 1), share = (bytes + n - 1) / n;
        else if (inst.opcode == isa::Opcode::AllGather) steps = n - 1, share = bytes;
        else steps = n - 1, share = (bytes + n - 1) / n;
        uint64_t t = now;
        for (uint64_t s = 0; s < steps; ++s) {
            const uint64_t ready = t + dma_overhead_ps;
            uint64_t step_end = ready;
            for (uint64_t r = 0; r < n; ++r) {
                const Queue& sender = queues[met[r].queue];
                const uint32_t next_core = queues[met[(r + 1) % n].queue].core;
                step_end = std::max(step_end, core_to_core(sender, next_core, share, ready));
                queues[met[r].queue].bytes += share;
            }
            t = step_end;
        }
        return t;
    }

    // ---- the run ----------------------------------------------------------------------------------

    std::string semaphore_name(uint32_t index) const {
        for (const isa::SemaphoreName& s : program.semaphore_names)
            if (s.index == index) return s.name;
        return fmt::format("${}", index);
    }

    std::string deadlock_report(uint64_t now) const {
        std::string report = fmt::format(
            "deadlock at {:.3f} us (iteration {}): every unfinished engine queue is waiting and nothing is in flight",
            double(now) * 1e-6, iteration + 1);
        for (const Queue& q : queues) {
            report += "\n  " + isa::describe(*q.stream) + ": ";
            if (q.state == State::Done) {
                report += "finished";
                continue;
            }
            const isa::Instruction& inst = q.stream->instructions[q.next];
            if (q.state == State::Waiting)
                report += fmt::format("instruction {} waits for {} >= {} (it is {}): ", q.next,
                                      semaphore_name(inst.sync.wait_semaphore), inst.sync.wait_value,
                                      cores[q.core].semaphores[inst.sync.wait_semaphore]);
            else
                report += fmt::format("instruction {} waits for the other cores of its {}: ", q.next,
                                      isa::info(inst.opcode).mnemonic);
            report += instruction_text(program, *q.stream, inst);
        }
        for (uint32_t c = 0; c < cores.size(); ++c) {
            std::string values;
            for (uint32_t s = 0; s < cores[c].semaphores.size(); ++s) {
                const bool named = std::any_of(program.semaphore_names.begin(), program.semaphore_names.end(),
                                               [&](const isa::SemaphoreName& n) { return n.index == s; });
                if (!named && cores[c].semaphores[s] == 0) continue;
                values += fmt::format("{}{}={}", values.empty() ? "" : ", ", semaphore_name(s), cores[c].semaphores[s]);
            }
            report += fmt::format("\n  semaphores of core {}: {}", c, values.empty() ? "all 0" : values);
        }
        return report;
    }

    void start_iteration(uint64_t now) {
        iteration_start = now;
        finished = 0;
        for (Core& core : cores) {
            std::fill(core.semaphores.begin(), core.semaphores.end(), 0);
            core.waiting.clear();
        }
        rendezvous.clear();
        rendezvous_counts.clear();
        for (uint32_t qi = 0; qi < queues.size(); ++qi) {
            Queue& q = queues[qi];
            q.next = 0;
            q.state = State::Ready;
            q.in_wait_list = false;
            q.bursting = false;
            events.schedule(now, EventKind::Wake, qi);
        }
    }

    // Nothing is left to happen: the iteration ended, or the run deadlocked.
    void settle() {
        if (over) return;
        const uint64_t now = now_ps();
        if (finished != queues.size()) {
            fail(std::make_exception_ptr(DeadlockError(deadlock_report(now))));
            return;
        }
        iteration_s.push_back(double(now - iteration_start) * 1e-12);
        if (iteration + 1 < iterations) {
            ++iteration;
            start_iteration(now);
            return;
        }
        end = now;
        stop();
    }

    void fail(std::exception_ptr error) {
        if (over) return;
        failure = error;
        stop();
    }

    // Ends the run from inside the simulation (sc_start returns to run()) and its processes, so that
    // none of them runs again. The calling process goes last: killing itself unwinds it.
    void stop() {
        over = true;
        sc_core::sc_pause();
        sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
        for (sc_core::sc_process_handle& process : processes)
            if (process != self) process.kill();
        self.kill();
    }

    struct Counters {
        uint64_t memory = 0, pcie = 0, links = 0;
    };

    Counters counters() const {
        Counters c;
        for (unsigned d : placement.devices()) {
            const NeuronDevice& device = *platform.devices()[d];
            for (const auto& channel : device.memory_channels()) c.memory += channel->timing().bytes_moved();
            c.pcie += device.endpoint().to_device().bytes_moved() + device.endpoint().to_host().bytes_moved();
        }
        for (const auto& link : platform.links()) c.links += link->a_to_b().bytes_moved() + link->b_to_a().bytes_moved();
        return c;
    }

    // Spawns the queues' processes and runs the simulation until they all finished every iteration,
    // deadlocked or failed.
    void simulate() {
        if (sc_core::sc_get_curr_process_kind() != sc_core::SC_NO_PROC_)
            throw std::logic_error("EngineScheduler::run() is host software: call it between sc_start calls");
        const uint64_t start = now_ps();
        iteration = 0;
        iteration_s.clear();
        over = false;
        failure = nullptr;
        end = start;
        events.clear();
        start_iteration(start);
        if (queues.empty()) {
            iteration_s.assign(iterations, 0.0);
            return;
        }
        processes.resize(queues.size());
        for (uint32_t qi = 0; qi < queues.size(); ++qi) {
            sc_core::sc_spawn_options process;
            process.spawn_method();
            process.dont_initialize();
            process.set_sensitivity(&wakes[qi]);
            processes[qi] = sc_core::sc_spawn([this, qi] { take_turn(qi); }, nullptr, &process);
        }
        wakes[events.top().a].notify(sc_core::SC_ZERO_TIME);
        while (!over) {
            sc_core::sc_start();
            if (!over && !sc_core::sc_pending_activity())
                throw std::logic_error("the engine queues' processes stopped before their run was over");
        }
        if (failure) std::rethrow_exception(failure);
    }

    RunStatistics run() {
        iterations = std::max<uint32_t>(1, options.iterations);
        progress.emplace(*this);
        const auto host_start = std::chrono::steady_clock::now();
        const Counters before = counters();
        const uint64_t start = now_ps();
        simulate();
        const Counters after = counters();

        RunStatistics stats;
        stats.iteration_s = iteration_s;
        stats.time_s = double(end - start) * 1e-12;
        const config::EngineSpec* tensor = nullptr;
        for (const auto& e : cost.core().engines)
            if (e.name == "tensor") tensor = &e;
        stats.cycle_clock_hz = tensor ? tensor->clock_hz : 0;
        stats.cycles = uint64_t(std::llround(stats.time_s * stats.cycle_clock_hz));
        for (const Queue& q : queues) {
            QueueStatistics s;
            s.name = q.name;
            s.core = q.core;
            s.engine = q.engine;
            s.queue = q.number;
            s.instructions = q.instructions;
            s.busy_s = double(q.busy_ps) * 1e-12;
            s.semaphore_wait_s = double(q.wait_ps) * 1e-12;
            s.bytes = q.bytes;
            stats.instructions += q.instructions;
            stats.dma_bytes += q.bytes;
            stats.queues.push_back(std::move(s));
        }
        stats.device_memory_bytes = after.memory - before.memory;
        stats.device_memory_peak_bytes_per_s =
            platform.spec().chip.memory.bytes_per_s * double(placement.devices().size());
        stats.pcie_bytes = after.pcie - before.pcie;
        stats.link_bytes = after.links - before.links;
        stats.host_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
        return stats;
    }
};

EngineScheduler::EngineScheduler(Platform& platform, const isa::Container& program, const ProgramPlacement& placement,
                                 ExecutionOptions options)
    : impl_(std::make_unique<Impl>(platform, program, placement, options)) {}

EngineScheduler::~EngineScheduler() = default;

RunStatistics EngineScheduler::run() { return impl_->run(); }

const TraceRecorder& EngineScheduler::trace() const { return impl_->trace; }

}  // namespace nsim::sim::core
