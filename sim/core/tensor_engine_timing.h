// CONTRACT between the engines' cost model (sim/core) and the tensor-engine timing model, which the
// RTL systolic array (sim/rtl) checks cycle for cycle: how long the PE array takes for one matmul
// or transpose, from the core's configured parameters. Pure functions of shapes, dtype and config.
#pragma once

#include <cstdint>

#include "config/host_spec.h"
#include "isa/types.h"

namespace nsim::sim::core {

struct MatmulShape {
    uint32_t contraction = 0;      // K: partitions of both inputs (rows of the PE array used)
    uint32_t stationary_free = 0;  // M: columns of the stationary tile (columns of the array used)
    uint32_t moving_free = 0;      // N: columns of the moving tile, streamed through the array
    isa::DType dtype = isa::DType::BF16;
    // True when the previous matmul on this engine used the same stationary tile, so no new
    // LoadStationary is needed (back-to-back matmuls sharing weights).
    bool stationary_reused = false;
};

// Tensor-engine cycles (at the tensor engine's clock) one matmul occupies the engine.
uint64_t matmul_cycles(const config::NeuronCoreSpec& core, const MatmulShape& shape);
// Tensor-engine cycles of a transpose through the array of a [partitions, free] tile.
uint64_t pe_transpose_cycles(const config::NeuronCoreSpec& core, uint32_t partitions, uint32_t free,
                             isa::DType dtype);

}  // namespace nsim::sim::core
