// What an engine run reports: its statistics, and the deadlock report when it cannot go on.
#include "core/engine_run.h"

#include <algorithm>
#include <chrono>

#include "core/instruction_text.h"

namespace nsim::sim::core {

std::string EngineRun::semaphore_name(uint32_t index) const {
    for (const isa::SemaphoreName& s : program.semaphore_names)
        if (s.index == index) return s.name;
    return fmt::format("${}", index);
}

std::string EngineRun::deadlock_report(uint64_t now) const {
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

EngineRun::Counters EngineRun::counters() const {
    Counters c;
    for (unsigned d : placement.devices()) {
        const NeuronDevice& device = *platform.devices()[d];
        for (const auto& channel : device.memory_channels()) c.memory += channel->timing().bytes_moved();
        c.pcie += device.endpoint().to_device().bytes_moved() + device.endpoint().to_host().bytes_moved();
    }
    for (const auto& link : platform.links()) c.links += link->a_to_b().bytes_moved() + link->b_to_a().bytes_moved();
    return c;
}

RunStatistics EngineRun::run() {
    iterations = std::max<uint32_t>(1, options.iterations);
    progress.emplace(*this);
    const auto host_start = std::chrono::steady_clock::now();
    const Counters before = counters();
    const uint64_t start = now_ps();
    simulate();
    const Counters after = counters();

    RunStatistics stats;
    stats.iteration_s = iteration_s;
    stats.marks = std::move(marks);
    stats.time_s = double(end - start) * 1e-12;
    const config::EngineSpec* tensor = nullptr;
    for (const auto& e : cost.core().engines)
        if (e.name == "tensor") tensor = &e;
    stats.cycle_clock_hz = tensor ? tensor->clock_hz : 0;
    stats.cycles = uint64_t(std::llround(stats.time_s * stats.cycle_clock_hz));
    stats.cores = uint32_t(cores.size());
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
        s.hbm_read_bytes = q.hbm_read;
        s.hbm_write_bytes = q.hbm_write;
        stats.instructions += q.instructions;
        stats.dma_bytes += q.bytes;
        stats.queues.push_back(std::move(s));
    }
    for (const Core& core : cores) stats.dma_active_s.push_back(double(core.dma_active_ps) * 1e-12);
    stats.device_memory_bytes = after.memory - before.memory;
    stats.device_memory_peak_bytes_per_s =
        platform.spec().chip.memory.bytes_per_s * double(placement.devices().size());
    stats.pcie_bytes = after.pcie - before.pcie;
    stats.link_bytes = after.links - before.links;
    stats.host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    return stats;
}

}  // namespace nsim::sim::core
