// How long each instruction occupies its engine, from its shapes, data types and the generation's
// parameters in configs/. The formula is written next to the parameters (configs/chips/nc-v2.yaml,
// "Engine cost model"); tests/core/cost_model_test.cpp checks every cost class against it.
//
// Compute engines: an instruction occupies its engine for `cycles` (the next instruction of the
// queue can issue then) and its results become visible `latency_cycles` later (its semaphore signal).
// DMA: a transfer costs dma_transfer_overhead_s, then its bytes at the rates of the resources it
// crosses; those are shared, so the engines model (engine_scheduler.h) times it, not this class.
#pragma once

#include <array>
#include <cstdint>

#include "config/host_spec.h"
#include "core/tensor_engine_timing.h"
#include "isa/instruction.h"

namespace nsim::sim::core {

struct InstructionCost {
    uint64_t cycles = 0;          // engine cycles the engine is busy
    uint64_t latency_cycles = 0;  // engine cycles after that until the results are visible
};

// What the tensor engine keeps from one matmul to the next.
struct TensorEngineState {
    isa::AccessPattern stationary;    // the loaded stationary tile; space None when nothing is loaded
    uint64_t last_stream_cycles = 0;  // how long the previous matmul streamed its moving tile
};

class CostModel {
public:
    explicit CostModel(const config::NeuronCoreSpec& core);

    // Cost of a compute or control instruction on `engine` (not DMA and collective transfers).
    // For matmuls `pe` holds the tensor engine's state and is updated; `back_to_back` says the
    // previous matmul was still streaming when this one issued, so its LoadStationary was hidden.
    InstructionCost compute(const isa::Instruction& instruction, isa::Engine engine, TensorEngineState* pe,
                            bool back_to_back) const;

    // Whether the core has an engine for this queue (DMA queues: whether it has DMA engines).
    bool has_engine(isa::Engine engine) const;
    double clock_hz(isa::Engine engine) const;
    // Picoseconds per cycle of `engine`, for converting costs to simulated time.
    double picoseconds_per_cycle(isa::Engine engine) const { return engines_[index(engine)].ps_per_cycle; }

    double dma_overhead_seconds() const { return core_.dma_transfer_overhead_s; }
    double dma_engine_bytes_per_s() const { return core_.dma_engine_bytes_per_s; }
    const config::NeuronCoreSpec& core() const { return core_; }

    // Bytes an operand covers (partitions x free elements x element size).
    static uint64_t operand_bytes(const isa::AccessPattern& ap);

private:
    struct EngineParameters {
        bool present = false;
        double clock_hz = 0;
        double ps_per_cycle = 0;
        uint32_t elements_per_cycle = 0;
        uint32_t elements_per_cycle_16bit = 0;
        uint32_t min_cycles = 0;
        uint32_t overhead_cycles = 0;
        uint32_t result_latency_cycles = 0;  // the engine's, else the core's SBUF/PSUM access latency
    };
    static size_t index(isa::Engine engine) { return size_t(engine); }

    // ceil(N * lanes / width), doubled when an on-chip operand streams at half rate.
    uint64_t stream_cycles(const EngineParameters& e, uint64_t free_elements, const isa::Instruction& inst) const;
    InstructionCost tensor_engine(const isa::Instruction& inst, TensorEngineState* pe, bool back_to_back) const;

    config::NeuronCoreSpec core_;
    std::array<EngineParameters, isa::engine_count()> engines_{};
};

}  // namespace nsim::sim::core
