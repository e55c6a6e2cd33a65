// What a run of a program measured: time, per-queue activity, bytes moved. Units are in the names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/types.h"

namespace nsim::sim::core {

struct QueueStatistics {
    std::string name;            // "core0.pe", "core1.dma3"
    uint32_t core = 0;           // program core
    isa::Engine engine = isa::Engine::Pe;
    uint8_t queue = 0;
    uint64_t instructions = 0;   // executed, over all iterations
    double busy_s = 0;           // time the engine (DMA: the queue) was occupied by an instruction
    double semaphore_wait_s = 0; // time the queue's next instruction waited for its semaphore
    uint64_t bytes = 0;          // DMA queues: bytes moved
    uint64_t hbm_read_bytes = 0;   // of which read from device memory (DMA sources, gather tables and indices, collective sends)
    uint64_t hbm_write_bytes = 0;  // and written to it (DMA destinations, collective receives)
};

// A queue reached a mark instruction (opcodes.def): the builder's name for a point of the program.
struct MarkTime {
    uint32_t core = 0;       // program core
    uint32_t label = 0;      // the mark's label
    uint32_t iteration = 0;  // 0-based
    double time_s = 0;       // since its iteration began
};

struct RunStatistics {
    double time_s = 0;                   // from the start of the first iteration to the end of the last
    double cycle_clock_hz = 0;           // the clock `cycles` counts (the tensor engine's)
    uint64_t cycles = 0;
    std::vector<double> iteration_s;     // each iteration's duration
    // Program cores the run simulated, 0 .. cores - 1: all of the program's, or the first device's
    // (ExecutionOptions::simulated_cores). 0: not said (every core).
    uint32_t cores = 0;
    std::vector<QueueStatistics> queues; // in program order: core, engine, queue
    std::vector<double> dma_active_s;    // by program core: time at least one of its DMA queues was busy
    std::vector<MarkTime> marks;         // in the order the queues reached them
    uint64_t instructions = 0;
    uint64_t dma_bytes = 0;              // bytes the program's DMA queues and collectives moved
    uint64_t device_memory_bytes = 0;    // bytes through the device-memory channels of the devices used
    double device_memory_peak_bytes_per_s = 0;  // what those channels could carry together
    uint64_t pcie_bytes = 0;             // both directions, devices used
    uint64_t link_bytes = 0;             // over NeuronLinks
    double host_seconds = 0;             // host wall-clock time the simulation took
};

}  // namespace nsim::sim::core
