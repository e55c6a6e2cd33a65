#include "core/run_report.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace nsim::sim::core {
namespace {

double per_second(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

std::string bytes_text(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
    return fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string rate_text(double bytes_per_s) { return fmt::format("{:.1f} GB/s", bytes_per_s / 1e9); }

}  // namespace

double busy_percent(const QueueStatistics& queue, const RunStatistics& stats) {
    return stats.time_s > 0 ? 100.0 * queue.busy_s / stats.time_s : 0;
}

nlohmann::json report_json(const RunStatistics& stats) {
    nlohmann::json engines = nlohmann::json::object();
    for (const QueueStatistics& q : stats.queues) {
        nlohmann::json e = {{"busy_pct", busy_percent(q, stats)},
                            {"instructions", q.instructions},
                            {"semaphore_wait_pct", stats.time_s > 0 ? 100.0 * q.semaphore_wait_s / stats.time_s : 0}};
        if (q.engine == isa::Engine::Dma) e["bytes"] = q.bytes;
        engines[q.name] = std::move(e);
    }
    const auto& it = stats.iteration_s;
    const double mean = it.empty() ? 0 : std::accumulate(it.begin(), it.end(), 0.0) / double(it.size());
    return {
        {"cycles", stats.cycles},
        {"clock_hz", stats.cycle_clock_hz},
        {"time_us", stats.time_s * 1e6},
        {"iterations", it.size()},
        {"iteration_us",
         {{"min", it.empty() ? 0 : *std::min_element(it.begin(), it.end()) * 1e6},
          {"mean", mean * 1e6},
          {"max", it.empty() ? 0 : *std::max_element(it.begin(), it.end()) * 1e6}}},
        {"instructions", stats.instructions},
        {"engines", std::move(engines)},
        {"dma", {{"bytes", stats.dma_bytes}, {"bytes_per_s", per_second(double(stats.dma_bytes), stats.time_s)}}},
        {"device_memory",
         {{"bytes", stats.device_memory_bytes},
          {"bytes_per_s", per_second(double(stats.device_memory_bytes), stats.time_s)},
          {"utilization_pct", stats.device_memory_peak_bytes_per_s > 0
                                  ? 100.0 * per_second(double(stats.device_memory_bytes), stats.time_s) /
                                        stats.device_memory_peak_bytes_per_s
                                  : 0}}},
        {"pcie", {{"bytes", stats.pcie_bytes}, {"bytes_per_s", per_second(double(stats.pcie_bytes), stats.time_s)}}},
        {"neuronlink", {{"bytes", stats.link_bytes}, {"bytes_per_s", per_second(double(stats.link_bytes), stats.time_s)}}},
        {"host",
         {{"seconds", stats.host_seconds},
          {"instructions_per_s", per_second(double(stats.instructions), stats.host_seconds)},
          {"cycles_per_s", per_second(double(stats.cycles), stats.host_seconds)}}},
    };
}

namespace {

double wait_percent(const QueueStatistics& q, const RunStatistics& stats) {
    return stats.time_s > 0 ? 100.0 * q.semaphore_wait_s / stats.time_s : 0;
}

std::string table_row(const std::string& name, double busy, uint64_t instructions, double wait, const std::string& bytes) {
    return fmt::format("{:<18} {:>8.1f} {:>13} {:>10.1f} {:>12}\n", name, busy, instructions, wait, bytes);
}

// Today's table: one row per engine queue (the DMA queues one by one).
std::string per_queue_table(const RunStatistics& stats) {
    std::string out;
    for (const QueueStatistics& q : stats.queues)
        out += table_row(q.name, busy_percent(q, stats), q.instructions, wait_percent(q, stats),
                         q.engine == isa::Engine::Dma ? bytes_text(double(q.bytes)) : std::string("-"));
    return out;
}

// One row per core and engine kind: the compute engines as they are, a core's DMA queues summed
// (instructions, bytes) and averaged (busy, semaphore wait), so that a 16-queue core is one line.
std::string per_core_table(const RunStatistics& stats) {
    std::string out;
    for (size_t i = 0; i < stats.queues.size();) {
        const QueueStatistics& first = stats.queues[i];
        if (first.engine != isa::Engine::Dma) {
            out += table_row(first.name, busy_percent(first, stats), first.instructions, wait_percent(first, stats), "-");
            ++i;
            continue;
        }
        size_t n = 0;
        uint64_t instructions = 0, bytes = 0;
        double busy = 0, wait = 0;
        for (; i < stats.queues.size() && stats.queues[i].core == first.core && stats.queues[i].engine == isa::Engine::Dma; ++i, ++n) {
            instructions += stats.queues[i].instructions;
            bytes += stats.queues[i].bytes;
            busy += busy_percent(stats.queues[i], stats);
            wait += wait_percent(stats.queues[i], stats);
        }
        out += table_row(fmt::format("core{}.dma x{}", first.core, n), busy / double(n), instructions, wait / double(n),
                         bytes_text(double(bytes)));
    }
    return out;
}

// The compute engines that waited longest for their semaphores: where the schedule stalls. DMA
// queues are left out: most hold a few transfers and wait out the run, which says nothing.
std::string top_stalls(const RunStatistics& stats, size_t count) {
    std::vector<const QueueStatistics*> queues;
    for (const QueueStatistics& q : stats.queues)
        if (q.semaphore_wait_s > 0 && q.engine != isa::Engine::Dma) queues.push_back(&q);
    std::sort(queues.begin(), queues.end(), [](auto* a, auto* b) { return a->semaphore_wait_s > b->semaphore_wait_s; });
    if (queues.empty()) return "";
    std::string out = "\ntop stalls (time a compute engine's next instruction waited for its semaphore):\n";
    for (size_t i = 0; i < queues.size() && i < count; ++i)
        out += fmt::format("  {:<16} {:>10.3f} us  ({:.1f}% of the run)\n", queues[i]->name, queues[i]->semaphore_wait_s * 1e6,
                           wait_percent(*queues[i], stats));
    return out;
}

}  // namespace

std::string report_text(const RunStatistics& stats, bool per_queue) {
    std::string out;
    out += fmt::format("time:           {:.3f} us ({} cycles at {:.2f} GHz), {} iteration{}\n", stats.time_s * 1e6,
                       stats.cycles, stats.cycle_clock_hz / 1e9, stats.iteration_s.size(),
                       stats.iteration_s.size() == 1 ? "" : "s");
    if (stats.iteration_s.size() > 1) {
        const auto& it = stats.iteration_s;
        out += fmt::format("per iteration:  min {:.3f} us, mean {:.3f} us, max {:.3f} us\n",
                           *std::min_element(it.begin(), it.end()) * 1e6,
                           std::accumulate(it.begin(), it.end(), 0.0) / double(it.size()) * 1e6,
                           *std::max_element(it.begin(), it.end()) * 1e6);
    }
    out += fmt::format("instructions:   {}\n", stats.instructions);
    out += fmt::format("DMA:            {} ({})\n", bytes_text(double(stats.dma_bytes)),
                       rate_text(per_second(double(stats.dma_bytes), stats.time_s)));
    out += fmt::format("device memory:  {} ({}, {:.1f}% of {})\n", bytes_text(double(stats.device_memory_bytes)),
                       rate_text(per_second(double(stats.device_memory_bytes), stats.time_s)),
                       stats.device_memory_peak_bytes_per_s > 0
                           ? 100.0 * per_second(double(stats.device_memory_bytes), stats.time_s) /
                                 stats.device_memory_peak_bytes_per_s
                           : 0.0,
                       rate_text(stats.device_memory_peak_bytes_per_s));
    // The engines' own PCIe traffic (DMAs to host memory); the runtime's input and output copies are
    // counted where their time is (the caller's end-to-end line), not here.
    if (per_queue || stats.pcie_bytes)
        out += fmt::format("PCIe (engines): {} ({})\n", bytes_text(double(stats.pcie_bytes)),
                           rate_text(per_second(double(stats.pcie_bytes), stats.time_s)));
    if (stats.link_bytes)
        out += fmt::format("NeuronLink:     {} ({})\n", bytes_text(double(stats.link_bytes)),
                           rate_text(per_second(double(stats.link_bytes), stats.time_s)));
    out += fmt::format("\n{:<18} {:>8} {:>13} {:>10} {:>12}\n", "engine", "busy %", "instructions", "sem wait %", "bytes");
    out += per_queue ? per_queue_table(stats) : per_core_table(stats);
    if (!per_queue) out += top_stalls(stats, kTopStalls);
    out += fmt::format("\nsimulated in {:.3f} s of host time ({:.2f} M instructions/s)\n", stats.host_seconds,
                       per_second(double(stats.instructions), stats.host_seconds) / 1e6);
    return out;
}

}  // namespace nsim::sim::core
