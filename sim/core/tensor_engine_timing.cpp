// The tensor-engine timing model: a weight-stationary systolic array. The formula, its parameters
// and their sources are in configs/chips/*.yaml under neuron_core.tensor; this file only evaluates it.
#include "core/tensor_engine_timing.h"

#include <algorithm>
#include <map>
#include <string>

namespace nsim::sim::core {
namespace {

uint32_t rate_or(const std::map<std::string, uint32_t>& rates, const std::string& key, uint32_t absent) {
    const auto it = rates.find(key);
    return it == rates.end() ? absent : it->second;
}

uint32_t tensor_min_initiation_interval(const config::NeuronCoreSpec& core) {
    for (const auto& engine : core.engines)
        if (engine.name == "tensor") return engine.min_instruction_cycles;
    return 0;
}

uint64_t ceil_div(uint64_t value, uint64_t divisor) { return (value + divisor - 1) / divisor; }

void check_limit(const char* what, uint64_t value, uint64_t limit) {
    if (value == 0) throw TensorShapeError(std::string("matmul ") + what + " is 0");
    if (value > limit)
        throw TensorShapeError(std::string("matmul ") + what + " " + std::to_string(value) +
                               " exceeds the tensor engine's " + std::to_string(limit));
}

// One matmul streaming its moving columns at `cycles_per_column` each.
MatmulTiming timing_at_rate(const config::NeuronCoreSpec& core, const MatmulShape& shape,
                            uint32_t cycles_per_column) {
    const config::TensorEngineSpec& array = core.tensor;
    const std::string key = tensor_dtype_key(shape.dtype);
    check_limit("contraction", shape.contraction,
                uint64_t(array.max_contraction) * rate_or(array.contraction_rows_per_pe, key, 1));
    check_limit("stationary free size", shape.stationary_free, array.max_stationary_free);
    check_limit("moving free size", shape.moving_free, array.max_moving_free);

    const uint64_t m = shape.stationary_free, n = shape.moving_free;
    MatmulTiming timing;
    timing.load = shape.stationary_reused ? 0 : ceil_div(m, array.stationary_load_columns_per_cycle);
    timing.exposed_load = timing.load > shape.background_load_window ? timing.load - shape.background_load_window : 0;
    const uint64_t min_interval = std::min<uint64_t>(tensor_min_initiation_interval(core), m);
    timing.stream = cycles_per_column * std::max(n, min_interval);
    timing.latency = cycles_per_column * n + (array.pe_rows - 1) + (m - 1) + array.pipeline_io_cycles;
    return timing;
}

}  // namespace

std::string tensor_dtype_key(isa::DType dtype) {
    switch (dtype) {
    case isa::DType::Fp32: return "fp32";
    case isa::DType::Bf16: return "bf16";
    case isa::DType::Fp16: return "fp16";
    case isa::DType::Fp8E4m3:
    case isa::DType::Fp8E5m2: return "fp8";
    case isa::DType::Int8:
    case isa::DType::Uint8: return "int8";
    default: break;
    }
    throw TensorShapeError("the tensor engine takes no " + std::string(isa::name_of(dtype)) + " inputs");
}

MatmulTiming matmul_timing(const config::NeuronCoreSpec& core, const MatmulShape& shape) {
    const std::string key = tensor_dtype_key(shape.dtype);
    return timing_at_rate(core, shape, rate_or(core.tensor.moving_cycles_per_column, key, 1));
}

uint64_t matmul_cycles(const config::NeuronCoreSpec& core, const MatmulShape& shape) {
    return matmul_timing(core, shape).occupancy();
}

// A transpose is a matmul of the tile (stationary [P, F]) with the identity (moving [P, P]), run
// back to back like NKI's cost figure, so its load hides behind the previous transpose's stream.
uint64_t pe_transpose_cycles(const config::NeuronCoreSpec& core, uint32_t partitions, uint32_t free,
                             isa::DType dtype) {
    const std::string key = tensor_dtype_key(dtype);
    const uint32_t cycles_per_column =
        rate_or(core.tensor.transpose_cycles_per_column, key,
                rate_or(core.tensor.moving_cycles_per_column, key, 1));
    MatmulShape shape{partitions, free, partitions, dtype, false, 0};
    shape.background_load_window = timing_at_rate(core, shape, cycles_per_column).stream;
    return timing_at_rate(core, shape, cycles_per_column).occupancy();
}

// The last result need not be the last matmul's: a wide matmul followed by a narrow one (fewer
// columns to cross) finishes after it.
uint64_t matmul_sequence_cycles(const config::NeuronCoreSpec& core, const std::vector<MatmulShape>& shapes) {
    uint64_t done = 0, window = 0, now = 0;
    for (MatmulShape shape : shapes) {
        shape.background_load_window = window;
        const MatmulTiming timing = matmul_timing(core, shape);
        done = std::max(done, now + timing.exposed_load + timing.latency);
        now += timing.occupancy();
        window = timing.stream;
    }
    return done;
}

}  // namespace nsim::sim::core
