// One point of a sweep, built as `neuron-build bert|bert-train ... --timing-only` builds it (the same
// code: neuron-build/bert_command.h, bert_train_command.h) and run as `neuron-sim run|train` runs it
// (tools/library), measured: latency or step time, throughput, MFU, each engine's busy %.
//
// Each point runs in a child process of its own: SystemC elaborates one simulated host per process
// (library/instance.h), and a point that crashes is then that point's error, not the sweep's. The
// child gets a private simulated-host state directory, so that sweep processes on one machine (MPI
// ranks) never claim each other's NeuronCores.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "neuron-sim/sweep_grid.h"

namespace nsim::tools {

// The engines whose busy % a row reports, by the CSV column and neuron-profile's metric (of the
// whole execution: time each engine was occupied over the time the program's cores had; DMA: time
// at least one of a core's DMA queues was busy).
struct SweepEngine {
    const char* column;
    const char* profile_metric;
};
inline constexpr std::array<SweepEngine, 5> kSweepEngines{{
    {"pe_busy_pct", "tensor_engine_active_time_percent"},
    {"act_busy_pct", "scalar_engine_active_time_percent"},
    {"dve_busy_pct", "vector_engine_active_time_percent"},
    {"pool_busy_pct", "gpsimd_engine_active_time_percent"},
    {"dma_busy_pct", "dma_active_time_percent"},
}};

struct SweepMeasurement {
    std::string error;                     // one line; empty when the point was measured
    std::optional<double> latency_ms;      // inference: end-to-end p50 over the executions
    std::optional<double> step_ms;         // training: the mean step (the runtime call)
    std::optional<double> throughput_per_s;  // sequences (inferences) per second
    std::optional<double> mfu_pct;         // training: training.md A2.2's; inference: neuron-profile's estimate
    std::vector<double> engine_busy_pct;   // as kSweepEngines
};

struct SweepSettings {
    uint32_t iterations = 1;                // inference executions per point
    uint32_t steps = 1;                     // training optimizer steps per point
    std::vector<std::string> config_files;  // neuron-sim's --config files, given to every build and run
};

// Builds and runs `point` in a child process; every failure is the measurement's error.
SweepMeasurement measure_sweep_point(const SweepPoint& point, const SweepSettings& settings);

// The commands that make the same measurement by hand: the build, and the run of what it wrote.
std::string sweep_build_command(const SweepPoint& point, const SweepSettings& settings);
std::string sweep_run_command(const SweepPoint& point, const SweepSettings& settings);

}  // namespace nsim::tools
