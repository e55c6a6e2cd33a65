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

std::string report_text(const RunStatistics& stats) {
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
    out += fmt::format("PCIe:           {} ({})\n", bytes_text(double(stats.pcie_bytes)),
                       rate_text(per_second(double(stats.pcie_bytes), stats.time_s)));
    if (stats.link_bytes)
        out += fmt::format("NeuronLink:     {} ({})\n", bytes_text(double(stats.link_bytes)),
                           rate_text(per_second(double(stats.link_bytes), stats.time_s)));
    out += fmt::format("\n{:<14} {:>8} {:>13} {:>10} {:>12}\n", "engine", "busy %", "instructions", "sem wait %", "bytes");
    for (const QueueStatistics& q : stats.queues)
        out += fmt::format("{:<14} {:>8.1f} {:>13} {:>10.1f} {:>12}\n", q.name, busy_percent(q, stats), q.instructions,
                           stats.time_s > 0 ? 100.0 * q.semaphore_wait_s / stats.time_s : 0.0,
                           q.engine == isa::Engine::Dma ? bytes_text(double(q.bytes)) : std::string("-"));
    out += fmt::format("\nsimulated in {:.3f} s of host time ({:.2f} M instructions/s)\n", stats.host_seconds,
                       per_second(double(stats.instructions), stats.host_seconds) / 1e6);
    return out;
}

}  // namespace nsim::sim::core
