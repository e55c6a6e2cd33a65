// What `neuron-sim train` reports after its steps (and the Python module could): the steps' log
// values, step time (engines, and the runtime call that includes the PCIe copies), sequences per
// second, the step time split into forward, backward, accumulation, all-reduce and optimizer
// (step_breakdown.h), MFU as the BERT script computes it (training.md A2.2: flops per sequence 12 L H S (6 H + S)
// over the core's peak for the program's dtype, configs/), the last step's engines, and the program's
// device memory by kind against the core's share of its device's memory, and how a step's time is
// composed of its graphs' executions (which were simulated, training_run.h). One struct; the text and
// the JSON object are printed from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "library/step_breakdown.h"
#include "library/training_run.h"

namespace nsim::library {

struct TrainingMemory {
    uint64_t weights = 0;          // parameters and their W^T copies
    uint64_t gradients = 0;        // fp32 sums over the micro-steps
    uint64_t optimizer_states = 0; // AdamW's m and v
    uint64_t activations = 0;      // the forward's activations spilled for the backward (none: kept on chip)
    uint64_t other = 0;            // inputs, outputs, constants
    uint32_t sequences_per_pass = 0;
    uint64_t core_share = 0;       // the device's memory over its cores
};

struct TrainingReport {
    std::string program, instance, dtype;
    TrainingShape shape;
    bool functional = false;
    std::vector<TrainingStepResult> steps;
    double step_device_s = 0;      // mean over the steps: the engines
    double step_s = 0;             // mean: the runtime call
    std::vector<StepPhaseTime> breakdown;  // mean over the steps: step_device_s in phases
    double throughput_per_s = 0;   // sequences per second at the mean step time
    double flops_per_sequence = 0;
    double peak_flops = 0;         // one core, the program's dtype
    double mfu = 0;                // model FLOPs per second over the peak
    TrainingMemory memory;
    // How the last step was simulated: its graphs' executions (how many, how many simulated, one's time).
    std::vector<GraphExecutions> last_step;
    std::vector<sim::core::PhysicalCore> cores;  // the program's cores, by program core
    ExecutionTiming last;          // the last step's last simulated micro-step, engines included
};

TrainingReport training_report(const Session& session, const TrainingShape& shape,
                               const std::vector<TrainingStepResult>& steps, bool functional);
nlohmann::json training_report_json(const TrainingReport& report);
std::string training_report_text(const TrainingReport& report);

}  // namespace nsim::library
