// CONTRACT between the engines' cost model (sim/core) and the tensor-engine timing model, which the
// RTL systolic array (sim/rtl) checks cycle for cycle: how long the PE array takes for one matmul
// or transpose, from the core's configured parameters. Pure functions of shapes, dtype and config.
// The formula is written next to its parameters in configs/chips/*.yaml (neuron_core.tensor).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/host_spec.h"
#include "isa/types.h"

namespace nsim::sim::core {

struct MatmulShape {
    uint32_t contraction = 0;      // K: partitions of both inputs (rows of the PE array used)
    uint32_t stationary_free = 0;  // M: columns of the stationary tile (columns of the array used)
    uint32_t moving_free = 0;      // N: columns of the moving tile, streamed through the array
    isa::DType dtype = isa::DType::Bf16;
    // True when the previous matmul on this engine used the same stationary tile, so no new
    // LoadStationary is needed (back-to-back matmuls sharing weights).
    bool stationary_reused = false;
    // Cycles the previous matmul on this engine streamed its moving tile (its matmul_stream_cycles):
    // this matmul's LoadStationary ran in the background meanwhile, the PEs holding two weight sets.
    // 0 when the engine was idle before, so the whole load is exposed.
    uint64_t background_load_window = 0;
};

// The terms of the formula for one matmul.
struct MatmulTiming {
    uint64_t load = 0;          // LoadStationary cycles (0 when the stationary tile is reused)
    uint64_t exposed_load = 0;  // the part of it not hidden behind the previous matmul's stream
    uint64_t stream = 0;        // moving-tile streaming, at least the minimum initiation interval
    uint64_t latency = 0;       // from the start of the stream to the last result written to PSUM
    uint64_t occupancy() const { return exposed_load + stream; }
};

// Thrown for a shape the array cannot run (a zero or over-limit size, a non-matmul dtype).
struct TensorShapeError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

MatmulTiming matmul_timing(const config::NeuronCoreSpec& core, const MatmulShape& shape);

// Tensor-engine cycles (at the tensor engine's clock) one matmul occupies the engine.
uint64_t matmul_cycles(const config::NeuronCoreSpec& core, const MatmulShape& shape);
// Tensor-engine cycles of a transpose through the array of a [partitions, free] tile.
uint64_t pe_transpose_cycles(const config::NeuronCoreSpec& core, uint32_t partitions, uint32_t free,
                             isa::DType dtype);

// Cycles from the first LoadStationary of a back-to-back sequence to its last result in PSUM, each
// matmul's load running in the background of the previous one's stream (the shapes'
// background_load_window is ignored; the sequence determines it).
uint64_t matmul_sequence_cycles(const config::NeuronCoreSpec& core, const std::vector<MatmulShape>& shapes);

// The configs/ data-type key ("bf16", "fp8", "int8"...) under which a tensor-engine input dtype's
// rates are listed; throws TensorShapeError for a dtype the array does not take.
std::string tensor_dtype_key(isa::DType dtype);

}  // namespace nsim::sim::core
