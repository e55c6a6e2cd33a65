// The tensor-engine timing model against the formula written next to its parameters in
// configs/chips/*.yaml (neuron_core.tensor) and against the published figures it comes from:
// NKI2's back-to-back II max(N_moving, 64), ISA-OLD's max(min(64, N_stationary), N_moving) with 4x
// for fp32, NKI2's 4x-faster LoadStationary and NKI3's double-FP8 and 2x FP32 transpose.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "config/config_set.h"
#include "core/tensor_engine_timing.h"

namespace nsim::sim::core {
namespace {

using isa::DType;

const config::NeuronCoreSpec& core_of(const std::string& chip) {
    static const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    return configs.chip(chip).core;
}
const config::NeuronCoreSpec& nc_v2() { return core_of("trainium1"); }
const config::NeuronCoreSpec& nc_v3() { return core_of("trainium2"); }

MatmulShape shape(uint32_t k, uint32_t m, uint32_t n, DType dtype = DType::Bf16, bool reused = false,
                  uint64_t window = 0) {
    return MatmulShape{k, m, n, dtype, reused, window};
}

TEST(TensorEngineTiming, SharedStationaryBackToBackIsNki2InitiationInterval) {
    for (uint32_t n : {1u, 32u, 63u, 64u, 65u, 128u, 511u, 512u})
        for (DType dtype : {DType::Bf16, DType::Fp16, DType::Fp8E4m3, DType::Int8})
            EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 128, n, dtype, true)), std::max(n, 64u))
                << "N=" << n << " " << isa::name_of(dtype);
}

TEST(TensorEngineTiming, SmallStationaryLowersTheFloorAsIsaOldSays) {
    // max(min(64, N_stationary), N_moving)
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 32, 16, DType::Bf16, true)), 32u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 32, 48, DType::Bf16, true)), 48u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 100, 16, DType::Bf16, true)), 64u);
}

TEST(TensorEngineTiming, Fp32RunsAtAQuarterRate) {
    for (uint32_t n : {16u, 64u, 200u, 512u}) {
        const MatmulShape bf16 = shape(128, 128, n, DType::Bf16, true);
        const MatmulShape fp32 = shape(128, 128, n, DType::Fp32, true);
        EXPECT_EQ(matmul_cycles(nc_v2(), fp32), 4 * matmul_cycles(nc_v2(), bf16));
        EXPECT_EQ(matmul_cycles(nc_v3(), fp32), 4 * matmul_cycles(nc_v3(), bf16));
    }
}

TEST(TensorEngineTiming, LoadStationaryIsFourTimesFasterAndExposedAfterAnIdleEngine) {
    // load = ceil(M / 4) with an idle engine before: all of it adds to the stream.
    EXPECT_EQ(matmul_timing(nc_v2(), shape(128, 128, 512)).load, 32u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 128, 512)), 32u + 512u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 30, 100)), 8u + 100u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 1, 100)), 1u + 100u);
}

TEST(TensorEngineTiming, BackgroundLoadHidesBehindThePreviousStream) {
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 128, 512, DType::Bf16, false, 512)), 512u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 128, 512, DType::Bf16, false, 32)), 512u);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(128, 128, 512, DType::Bf16, false, 20)), 12u + 512u);
    const MatmulTiming partly = matmul_timing(nc_v2(), shape(128, 128, 64, DType::Bf16, false, 31));
    EXPECT_EQ(partly.load, 32u);
    EXPECT_EQ(partly.exposed_load, 1u);
    EXPECT_EQ(partly.occupancy(), 65u);
}

TEST(TensorEngineTiming, LatencyIsTheWavefrontThroughRowsAndUsedColumns) {
    // latency = cpc * N + (pe_rows - 1) + (M - 1) + pipeline_io_cycles
    const auto& core = nc_v2();
    const uint32_t io = core.tensor.pipeline_io_cycles;
    EXPECT_EQ(matmul_timing(core, shape(128, 128, 512)).latency, 512u + 127u + 127u + io);
    EXPECT_EQ(matmul_timing(core, shape(16, 8, 10)).latency, 10u + 127u + 7u + io);
    EXPECT_EQ(matmul_timing(core, shape(128, 128, 10, DType::Fp32)).latency, 40u + 127u + 127u + io);
}

TEST(TensorEngineTiming, SequenceOverlapsEachLoadWithThePreviousStream) {
    const auto& core = nc_v2();
    const uint32_t io = core.tensor.pipeline_io_cycles;
    // First load exposed (32), second hidden behind the first 512-cycle stream.
    EXPECT_EQ(matmul_sequence_cycles(core, {shape(128, 128, 512), shape(128, 128, 512)}),
              32u + 512u + (512u + 127u + 127u + io));
    // A short stream (N=8 padded to the 64-cycle floor by M=128) still hides a 32-cycle load.
    EXPECT_EQ(matmul_sequence_cycles(core, {shape(128, 128, 8), shape(128, 128, 8)}),
              32u + 64u + (8u + 127u + 127u + io));
    // Behind a 16-cycle stream (M=16) a 32-cycle load shows for 16 cycles; the last stream starts at
    // 4 + 16 + 16 and its results are in PSUM N + 127 + 127 + io cycles later.
    EXPECT_EQ(matmul_sequence_cycles(core, {shape(128, 16, 16), shape(128, 128, 16)}),
              (4u + 16u + 16u) + (16u + 127u + 127u + io));
    // A narrow matmul after a wide one finishes first: the wide one's results end the sequence.
    EXPECT_EQ(matmul_sequence_cycles(core, {shape(128, 128, 1), shape(128, 4, 1)}),
              32u + (1u + 127u + 127u + io));
    EXPECT_EQ(matmul_sequence_cycles(core, {}), 0u);
}

TEST(TensorEngineTiming, DoubleRowModesAcceptTwiceTheContraction) {
    EXPECT_EQ(matmul_cycles(nc_v3(), shape(256, 128, 512, DType::Fp8E4m3, true)), 512u);
    EXPECT_THROW(matmul_cycles(nc_v3(), shape(256, 128, 512, DType::Bf16)), TensorShapeError);
    EXPECT_EQ(matmul_cycles(nc_v2(), shape(256, 128, 512, DType::Int8, true)), 512u);
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(257, 128, 512, DType::Int8)), TensorShapeError);
}

TEST(TensorEngineTiming, TransposeCostsIsaOldMaxOfPartitionsAndFloor) {
    // max(P, min(64, F)), the load of the tile hidden behind the previous transpose.
    EXPECT_EQ(pe_transpose_cycles(nc_v2(), 128, 128, DType::Bf16), 128u);
    EXPECT_EQ(pe_transpose_cycles(nc_v2(), 32, 128, DType::Bf16), 64u);
    EXPECT_EQ(pe_transpose_cycles(nc_v2(), 16, 32, DType::Bf16), 32u);
    EXPECT_EQ(pe_transpose_cycles(nc_v2(), 128, 128, DType::Fp32), 512u);
    // NKI3 transpose mode: fp32 at twice the matmul's quarter rate.
    EXPECT_EQ(pe_transpose_cycles(nc_v3(), 128, 128, DType::Fp32), 256u);
    // Even a tiny transpose hides its load: ceil(128 / 4) = 32 < the 64-cycle floor.
    EXPECT_EQ(pe_transpose_cycles(nc_v2(), 8, 128, DType::Bf16), 64u);
}

TEST(TensorEngineTiming, OverLimitShapesAndNonMatmulTypesAreRejected) {
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(0, 128, 512)), TensorShapeError);
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(129, 128, 512)), TensorShapeError);
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(128, 129, 512)), TensorShapeError);
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(128, 128, 513)), TensorShapeError);
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(128, 128, 0)), TensorShapeError);
    EXPECT_THROW(matmul_cycles(nc_v2(), shape(128, 128, 64, DType::Int32)), TensorShapeError);
    try {
        matmul_cycles(nc_v2(), shape(128, 128, 600));
        FAIL() << "no error";
    } catch (const TensorShapeError& e) {
        EXPECT_STREQ(e.what(), "matmul moving free size 600 exceeds the tensor engine's 512");
    }
}

TEST(TensorEngineTiming, AbsentTimingKeysTakeTheNeutralValues) {
    config::NeuronCoreSpec core;
    core.tensor.pe_rows = core.tensor.pe_cols = 16;
    core.tensor.max_contraction = core.tensor.max_stationary_free = 16;
    core.tensor.max_moving_free = 64;
    // No tensor engine min II, one stationary column per cycle, no I/O stages, one cycle per column.
    const MatmulTiming timing = matmul_timing(core, shape(16, 12, 5, DType::Fp32));
    EXPECT_EQ(timing.load, 12u);
    EXPECT_EQ(timing.stream, 5u);
    EXPECT_EQ(timing.latency, 5u + 15u + 11u);
}

// The streaming rates reproduce each chip's published peak: pe_rows * pe_cols * rows_per_pe * 2 FLOP
// * clock / cycles_per_column, within the few percent AWS's own totals differ (hardware.md 4.1).
TEST(TensorEngineTiming, DerivedPeakMatchesPeakFlopsOfEveryChip) {
    for (const std::string chip : {"inferentia", "inferentia2", "trainium1", "trainium2"}) {
        const auto& core = core_of(chip);
        double clock = 0;
        for (const auto& engine : core.engines)
            if (engine.name == "tensor") clock = engine.clock_hz;
        for (const auto& [dtype, published] : core.tensor.peak_flops) {
            const auto rate = [&](const std::map<std::string, uint32_t>& rates) {
                const auto it = rates.find(dtype);
                return it == rates.end() ? 1.0 : double(it->second);
            };
            const double derived = double(core.tensor.pe_rows) * core.tensor.pe_cols *
                                   rate(core.tensor.contraction_rows_per_pe) * 2 * clock /
                                   rate(core.tensor.moving_cycles_per_column);
            EXPECT_LT(std::abs(derived - published) / published, 0.05)
                << chip << " " << dtype << ": derived " << derived << ", configured " << published;
        }
    }
}

}  // namespace
}  // namespace nsim::sim::core
