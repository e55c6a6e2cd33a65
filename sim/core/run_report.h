// A run's statistics as the user reads them: a JSON object (`neuron-sim run --json`) and a text
// summary. Names carry units (time_us, busy_pct, bytes_per_s).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_statistics.h"

namespace nsim::sim::core {

// {cycles, clock_hz, time_us, iterations, iteration_us {min, mean, max}, instructions,
//  engines {name: {busy_pct, instructions, semaphore_wait_pct, bytes?}},
//  dma {bytes, bytes_per_s}, device_memory {bytes, bytes_per_s, utilization_pct},
//  pcie {bytes, bytes_per_s}, neuronlink {bytes, bytes_per_s},
//  host {seconds, instructions_per_s, cycles_per_s}}
nlohmann::json report_json(const RunStatistics& stats);
// For people: totals, then one line per core and engine kind (a core's DMA queues as one line:
// instructions and bytes summed, busy and semaphore wait averaged) and the top stalls;
// `per_queue` instead lists every queue (neuron-sim run --verbose).
std::string report_text(const RunStatistics& stats, bool per_queue = false);
inline constexpr size_t kTopStalls = 5;

// Busy percentage of one queue over the whole run.
double busy_percent(const QueueStatistics& queue, const RunStatistics& stats);

}  // namespace nsim::sim::core
