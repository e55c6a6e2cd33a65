// One execution summarised in neuron-profile's terms (../shared/reference/tools.md section 4): the
// metrics of its Summary table that the simulator measures, under their real names and units, plus a
// few of its own (named in the same style, marked below). `neuron-sim profile PROG.bin` prints it as
// summary-text ("name value" lines in a fixed order) or JSON; `neuron-sim run --profile FILE` writes
// the JSON.
//
// How each figure is made (all from the engines' simulation of the instruction stream):
//   total_time                 the engines' time for the execution (s); as neuron-profile's, without
//                              the host's copies and the runtime's overhead
//   neuroncore_cycle_count     total_time x the tensor engine's clock (configs/chips), the clock the
//                              run report counts cycles in
//   model_flops, transpose_flops, hardware_flops   instruction_flops.h, times the engines' iterations
//   mfu_estimated_percent      100 x (model work at peak) / (total_time x cores): the matmuls' FLOPs,
//                              each over the per-core peak_flops of its data type (configs/chips),
//                              over the time the program's cores had. For one data type this is
//                              model_flops / (total_time x cores x peak).
//   hfu_estimated_percent      the same with hardware_flops (transposes included), so >= MFU
//   mm_arithmetic_intensity    (hardware_flops - transpose_flops) / (hbm_read_bytes + hbm_write_bytes)
//   <engine>_active_time       time the engine was occupied by instructions, summed over the cores
//                              (tensor = PE, vector = DVE, scalar = ACT, gpsimd = POOL, sync = SP)
//   <engine>_active_time_percent   of total_time x cores
//   <engine>_instruction_count, matmul_instruction_count
//   dma_active_time            time at least one DMA queue of a core was busy, summed over the cores;
//                              _percent of total_time x cores
//   dma_transfer_count, dma_transfer_total_bytes, dma_transfer_average_bytes, dma_queue_count
//   hbm_read_bytes, hbm_write_bytes   device memory read and written by the DMAs and collectives
//   mbu_estimated_percent      (hbm_read_bytes + hbm_write_bytes) / total_time over the device memory
//                              bandwidth of the devices used (configs/chips memory.bytes_per_s)
// The simulator's own (not in neuron-profile's schema):
//   dma_bandwidth_bytes_per_s, hbm_read_bandwidth_bytes_per_s, hbm_write_bandwidth_bytes_per_s
//                              bytes / total_time
//   semaphore_wait_time        time the queues' next instructions waited (for a semaphore or for the
//                              other cores of a collective), summed over every queue; per engine as
//                              <engine>_semaphore_wait_time (dma: every DMA queue)
// Per core ("per_core" in JSON, nc_idx = program core) the same metrics for that core alone.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/host_spec.h"
#include "core/run_statistics.h"
#include "isa/container.h"

namespace nsim::sim::profile {

struct Metric {
    std::string name;
    double value = 0;
    bool integer = false;  // a count or bytes: printed without a fraction
};

struct ProfileSummary {
    std::vector<Metric> summary;                // the whole execution, in a fixed order
    std::vector<std::vector<Metric>> per_core;  // program core by program core, "nc_idx" first

    double value(const std::string& name) const;  // of the whole execution; std::out_of_range when absent
};

// `stats` is one execution of `program` on a machine of `chip` (every field the engines fill).
ProfileSummary summarize(const core::RunStatistics& stats, const isa::Container& program, const config::ChipSpec& chip);

// {"summary": {name: value, ...}, "per_core": [{"nc_idx": 0, ...}, ...]}
nlohmann::json profile_json(const ProfileSummary& profile);
// neuron-profile's summary-text: "name value", one metric a line, the whole execution's, then each
// core's under a "nc_idx N" line.
std::string profile_text(const ProfileSummary& profile);

}  // namespace nsim::sim::profile
