// An engine run: its construction, the turn that passes between the queues' processes, issuing,
// and the run's life (iterations, the end, failures).
#include "core/engine_run.h"

#include <algorithm>
#include <stdexcept>

#include "core/instruction_fetch.h"

namespace nsim::sim::core {

EngineRun::EngineRun(Platform& p, const isa::Container& c, const ProgramPlacement& pl, ExecutionOptions o)
    : platform(p), program(c), placement(o.simulated_cores ? first_cores_of(pl, c, o.simulated_cores) : pl), options(o),
      cost(p.spec().chip.core), trace(&c) {
    if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
        throw std::logic_error("the engines count picoseconds: SystemC's time resolution must be 1 ps");
    if (options.simulated_cores && options.functional)
        throw std::logic_error("a functional run computes every core's values: it cannot leave cores out");
    dma_overhead_ps = to_ps(cost.dma_overhead_seconds());
    if (options.graph >= program.graph_count())
        throw RunError(fmt::format("graph {} is not in the program (its graphs: {})", options.graph, program.graph_list()));
    if (!placement.code.empty()) {
        fetched = fetch_streams(program, placement, platform, options.graph);
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
        core.spaces.rounding = std::make_shared<RoundingState>(&nc.rounding_stream());
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
        if (s.instructions.empty() || s.graph != options.graph) continue;
        if (options.simulated_cores && s.core >= cores.size()) continue;  // a core left out
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
            find_shared_ports(q);
        }
        if (options.trace) {
            const PhysicalCore& pc = cores[s.core].physical;
            q.track = trace.add_track(s.core, fmt::format("core {} (device {} nc {})", s.core, pc.device, pc.core), s);
        }
        queues.push_back(std::move(q));
    }
    wakes = std::make_unique<sc_core::sc_event[]>(queues.size());
}

std::string EngineRun::where(const Queue& q) const {
    const isa::Instruction& inst = q.stream->instructions[q.next];
    return fmt::format("{}, instruction {} ({})", isa::describe(*q.stream), q.next, isa::info(inst.opcode).mnemonic);
}

void EngineRun::take_turn(uint32_t qi) {
    try {
        pass_turn(qi);
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // killed: SystemC unwinds the process
    } catch (...) {
        fail(std::current_exception());
    }
}

void EngineRun::pass_turn(uint32_t me) {
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

void EngineRun::step(uint32_t qi, uint64_t now) {
    if (queues[qi].bursting) dma_burst(qi, now);
    else issue(qi, now);
}

void EngineRun::issue(uint32_t qi, uint64_t now) {
    Queue& q = queues[qi];
    if (q.dma_busy) dma_idle_at(q, now);
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
            cores[q.core].waiting.push_back({qi, inst.sync.wait_semaphore, inst.sync.wait_value});
            q.in_wait_list = true;
        }
        return;
    }
    const isa::CostClass cost_class = isa::info(inst.opcode).cost;
    const bool compute = cost_class != isa::CostClass::Dma && cost_class != isa::CostClass::DmaGather &&
                         cost_class != isa::CostClass::Collective && inst.opcode != isa::Opcode::Barrier;
    if (compute) {
        const uint64_t ready = hazard_free_at(q, inst, now);
        if (ready > now) {  // a timed wait: nothing but time has to pass
            if (q.state != State::Waiting) {
                q.state = State::Waiting;
                q.wait_since = now;
            }
            events.schedule(ready, EventKind::Wake, qi);
            return;
        }
    }
    if (q.state == State::Waiting) {
        q.wait_ps += now - q.wait_since;
        waited(q, WaitKind::Semaphore, q.wait_since, now);
    }
    q.state = State::Busy;
    q.started = now;
    ++q.instructions;
    q.bytes_at_issue = q.bytes, q.hbm_read_at_issue = q.hbm_read, q.hbm_write_at_issue = q.hbm_write;
    // A collective occupies its queue once its peers are there (meet), not while it waits for them.
    if (q.engine == isa::Engine::Dma && isa::info(inst.opcode).cost != isa::CostClass::Collective) dma_busy_from(q, now);

    switch (cost_class) {
        case isa::CostClass::Dma:
        case isa::CostClass::DmaGather: start_dma(qi, inst, now); return;
        case isa::CostClass::Collective: arrive(qi, inst, now); return;
        default: break;
    }
    if (inst.opcode == isa::Opcode::Barrier) {
        arrive(qi, inst, now);
        return;
    }
    if (inst.opcode == isa::Opcode::Mark)
        marks.push_back({q.core, inst.u32(isa::fields::Mark::label), iteration, double(now - iteration_start) * 1e-12});
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
    const uint64_t visible = now + busy + cycles_to_ps(q, c.latency_cycles);
    note_issue(q, inst, now + busy, visible);
    finish(qi, now + busy, visible);
}

void EngineRun::finish(uint32_t qi, uint64_t free, uint64_t visible) {
    Queue& q = queues[qi];
    const isa::Instruction& inst = q.stream->instructions[q.next];
    q.busy_ps += free - q.started;
    if (options.trace) {
        SliceTraffic traffic;
        traffic.bytes = q.bytes - q.bytes_at_issue;
        traffic.hbm_read_bytes = q.hbm_read - q.hbm_read_at_issue;
        traffic.hbm_write_bytes = q.hbm_write - q.hbm_write_at_issue;
        traffic.data_start_ps = q.started + dma_overhead_ps;  // DMAs and collectives begin with the fixed overhead
        trace.record(q.track, uint32_t(q.next), iteration, q.started, free - q.started, &traffic);
    }
    if (inst.sync.signal_semaphore != isa::kNoSemaphore)
        events.schedule(visible, EventKind::Signal, q.core, inst.sync.signal_semaphore);
    ++q.next;
    q.state = State::Ready;
    events.schedule(free, EventKind::Wake, qi);
}

void EngineRun::dma_busy_from(Queue& q, uint64_t now) {
    Core& core = cores[q.core];
    if (core.dma_busy_queues++ == 0) core.dma_busy_since = now;
    q.dma_busy = true;
}

void EngineRun::dma_idle_at(Queue& q, uint64_t now) {
    Core& core = cores[q.core];
    q.dma_busy = false;
    if (--core.dma_busy_queues == 0) core.dma_active_ps += now - core.dma_busy_since;
}

void EngineRun::waited(const Queue& q, WaitKind kind, uint64_t since, uint64_t now) {
    if (options.trace) trace.record_wait(q.track, kind, uint32_t(q.next), iteration, since, now);
}

void EngineRun::change_semaphore(uint32_t core_index, uint32_t semaphore, uint32_t value, uint64_t now) {
    Core& core = cores[core_index];
    core.semaphores.at(semaphore) = value;
    // Wake every queue of the core whose wait now holds; they re-check when they issue.
    size_t kept = 0;
    for (const Core::Waiter& w : core.waiting) {
        if (w.semaphore == semaphore && value >= w.value) {
            queues[w.queue].in_wait_list = false;
            events.schedule(now, EventKind::Wake, w.queue);
        } else {
            core.waiting[kept++] = w;
        }
    }
    core.waiting.resize(kept);
}

EngineRun::RegionCopy EngineRun::region_copy(const DeviceRegion& region) {
    return {platform.devices().at(region.device)->memory_channels().at(region.channel).get(), region.offset};
}

void EngineRun::start_iteration(uint64_t now) {
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
        q.last_issued = nullptr;
        events.schedule(now, EventKind::Wake, qi);
    }
}

void EngineRun::settle() {
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

void EngineRun::fail(std::exception_ptr error) {
    if (over) return;
    failure = error;
    stop();
}

void EngineRun::stop() {
    over = true;
    sc_core::sc_pause();
    sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
    for (sc_core::sc_process_handle& process : processes)
        if (process != self) process.kill();
    self.kill();
}

void EngineRun::simulate() {
    if (sc_core::sc_get_curr_process_kind() != sc_core::SC_NO_PROC_)
        throw std::logic_error("EngineScheduler::run() is host software: call it between sc_start calls");
    const uint64_t start = now_ps();
    iteration = 0;
    iteration_s.clear();
    marks.clear();
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

}  // namespace nsim::sim::core
