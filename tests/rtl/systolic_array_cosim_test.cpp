// Co-simulation of the verilated systolic array (sim/rtl) against the fast tensor-engine model:
// the same GEMM tiles run through both.
//  - Results: the RTL's PSUM words must equal, bit for bit, the fast model's functional matmul
//    (sim/core/semantics execute(): fp32 products, summed in fp32 in ascending contraction order
//    from +0, RNE; int8 exact in int32) and an independent plain C++ reference.
//  - Cycles: from the array's first read to its last PSUM write, against matmul_sequence_cycles()
//    of the fast model evaluated with the NeuronCore-v2 spec scaled to the RTL's array (see
//    scaled_to_array below); they must agree within 2%, and each run prints both and the difference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include <fmt/format.h>

#include "config/config_set.h"
#include "core/semantics/functional.h"
#include "core/tensor_engine_timing.h"
#include "systolic_array_bench.h"

namespace nsim::rtl_test {
namespace {

using sim::core::MatmulShape;
using Bench = SystolicArrayBench;

constexpr double kCycleTolerance = 0.02;

const config::NeuronCoreSpec& chip_core() {
    static const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    return configs.chip("trainium1").core;
}

// The fast model at the RTL's size: NeuronCore-v2 with its PE array replaced by the RTL's
// (pe_rows, pe_cols and the contraction/stationary limits = the RTL's rows and columns), and the two
// limits counted in moving columns against the array width scaled by the same factor
// (rtl cols / 128): max_moving_free 512 -> 64 and the tensor engine's min II 64 -> 8 for 16 columns.
// Per-column rates (cycles per moving column per dtype, double-row, LoadStationary columns per
// cycle) and the pipeline I/O stages are per PE or per column and stay as configured.
config::NeuronCoreSpec scaled_to_array(const config::NeuronCoreSpec& chip) {
    config::NeuronCoreSpec core = chip;
    const auto scale = [&](uint32_t value) { return value * Bench::kCols / chip.tensor.pe_cols; };
    core.tensor.pe_rows = core.tensor.max_contraction = Bench::kRows;
    core.tensor.pe_cols = core.tensor.max_stationary_free = Bench::kCols;
    core.tensor.max_moving_free = scale(chip.tensor.max_moving_free);
    for (auto& engine : core.engines)
        if (engine.name == "tensor") engine.min_instruction_cycles = scale(engine.min_instruction_cycles);
    return core;
}

uint32_t tensor_min_interval(const config::NeuronCoreSpec& core) {
    for (const auto& engine : core.engines)
        if (engine.name == "tensor") return engine.min_instruction_cycles;
    return 0;
}

isa::DType isa_dtype(ArrayDtype dtype) {
    switch (dtype) {
    case ArrayDtype::Int8: return isa::DType::Int8;
    case ArrayDtype::Bf16: return isa::DType::Bf16;
    case ArrayDtype::Fp16: return isa::DType::Fp16;
    case ArrayDtype::Fp32: return isa::DType::Fp32;
    }
    return isa::DType::None;
}

// The RTL's sequencer parameters, from the scaled spec.
ArrayConfig array_config(const config::NeuronCoreSpec& core) {
    ArrayConfig config;
    config.min_interval = tensor_min_interval(core);
    for (ArrayDtype dtype : {ArrayDtype::Int8, ArrayDtype::Bf16, ArrayDtype::Fp16, ArrayDtype::Fp32}) {
        const auto& rates = core.tensor.moving_cycles_per_column;
        const auto it = rates.find(sim::core::tensor_dtype_key(isa_dtype(dtype)));
        config.cycles_per_column |= (it == rates.end() ? 1u : it->second) << (4 * uint32_t(dtype));
    }
    return config;
}

// ---- data -------------------------------------------------------------------------------------

// Random raw elements whose products and sums stay inside the PE's normal fp32 range (sim/rtl/fp32_arith.sv).
uint32_t random_element(ArrayDtype dtype, std::mt19937& rng) {
    std::uniform_int_distribution<uint32_t> bits(0, 0xffffffffu);
    const uint32_t r = bits(rng);
    const uint32_t sign = r >> 31;
    switch (dtype) {
    case ArrayDtype::Int8: return r & 0xffu;
    case ArrayDtype::Bf16: return sign << 15 | (121 + r % 13) << 7 | (r >> 8 & 0x7fu);     // 2^-6 .. 2^6
    case ArrayDtype::Fp16: return sign << 15 | (9 + r % 13) << 10 | (r >> 8 & 0x3ffu);     // 2^-6 .. 2^6
    case ArrayDtype::Fp32: return sign << 31 | (121 + r % 13) << 23 | (r >> 8 & 0x7fffffu);
    }
    return 0;
}

MatmulJob random_job(uint32_t k, uint32_t m, uint32_t n, ArrayDtype dtype, std::mt19937& rng) {
    MatmulJob job{k, m, n, dtype, false, {}, {}};
    for (uint32_t i = 0; i < k * m; ++i) job.stationary.push_back(random_element(dtype, rng));
    for (uint32_t i = 0; i < k * n; ++i) job.moving.push_back(random_element(dtype, rng));
    return job;
}

// The next tile against the same stationary tile (back-to-back matmuls sharing weights).
MatmulJob reusing(const MatmulJob& previous, uint32_t n, std::mt19937& rng) {
    MatmulJob job = random_job(previous.contraction, previous.stationary_free, n, previous.dtype, rng);
    job.stationary = previous.stationary;
    job.reuse_stationary = true;
    return job;
}

// ---- independent reference ----------------------------------------------------------------------

float to_float(ArrayDtype dtype, uint32_t raw) {
    uint32_t bits = raw;
    if (dtype == ArrayDtype::Bf16) bits = raw << 16;
    if (dtype == ArrayDtype::Fp16) {
        const uint32_t exponent = raw >> 10 & 0x1fu;  // normal fp16 only, as generated
        bits = (raw >> 15) << 31 | (exponent + 112) << 23 | (raw & 0x3ffu) << 13;
    }
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::vector<uint32_t> reference_matmul(const MatmulJob& job) {
    std::vector<uint32_t> out(job.stationary_free * job.moving_free);
    for (uint32_t m = 0; m < job.stationary_free; ++m)
        for (uint32_t n = 0; n < job.moving_free; ++n) {
            const auto s = [&](uint32_t k) { return job.stationary[k * job.stationary_free + m]; };
            const auto v = [&](uint32_t k) { return job.moving[k * job.moving_free + n]; };
            uint32_t word = 0;
            if (job.dtype == ArrayDtype::Int8) {
                int32_t sum = 0;
                for (uint32_t k = 0; k < job.contraction; ++k) sum += int8_t(s(k)) * int8_t(v(k));
                word = uint32_t(sum);
            } else {
                float sum = 0.0f;
                for (uint32_t k = 0; k < job.contraction; ++k) {
                    const float product = to_float(job.dtype, s(k)) * to_float(job.dtype, v(k));
                    sum = sum + product;
                }
                std::memcpy(&word, &sum, sizeof word);
            }
            out[m * job.moving_free + n] = word;
        }
    return out;
}

// ---- the fast model's functional matmul (sim/core/semantics) ------------------------------------

isa::AccessPattern tile_pattern(isa::MemorySpace space, isa::DType dtype, uint32_t partitions, uint32_t free,
                                uint64_t offset) {
    isa::AccessPattern ap;
    ap.space = space;
    ap.dtype = dtype;
    ap.partition_count = partitions;
    ap.offset = offset;
    ap.dim_count = 1;
    ap.dims[0] = {1, free};
    return ap;
}

std::vector<uint32_t> fast_model_matmul(const MatmulJob& job) {
    const auto& chip = chip_core();
    sim::SparseMemory sbuf(chip.sbuf.total_bytes()), psum(chip.psum.total_bytes());
    sim::core::MemorySpaces spaces;
    spaces.sbuf = &sbuf;
    spaces.sbuf_partition_bytes = chip.sbuf.bytes_per_partition;
    spaces.psum = &psum;
    spaces.psum_partition_bytes = chip.psum.bytes_per_partition;

    const isa::DType in = isa_dtype(job.dtype);
    const uint32_t size = isa::size_in_bytes(in);
    const uint64_t moving_offset = uint64_t(job.stationary_free) * size;
    const auto store = [&](const std::vector<uint32_t>& tile, uint32_t free, uint64_t offset) {
        for (uint32_t k = 0; k < job.contraction; ++k)
            for (uint32_t f = 0; f < free; ++f) {
                const uint32_t raw = tile[k * free + f];  // little-endian low bytes = the element
                sbuf.write(k * spaces.sbuf_partition_bytes + offset + f * size,
                           reinterpret_cast<const uint8_t*>(&raw), size);
            }
    };
    store(job.stationary, job.stationary_free, 0);
    store(job.moving, job.moving_free, moving_offset);

    namespace F = isa::fields::Matmul;
    isa::Instruction matmul;
    matmul.opcode = isa::Opcode::Matmul;
    const isa::DType out = job.dtype == ArrayDtype::Int8 ? isa::DType::Int32 : isa::DType::Fp32;
    matmul.set(F::dst, tile_pattern(isa::MemorySpace::Psum, out, job.stationary_free, job.moving_free, 0));
    matmul.set(F::stationary, tile_pattern(isa::MemorySpace::Sbuf, in, job.contraction, job.stationary_free, 0));
    matmul.set(F::moving, tile_pattern(isa::MemorySpace::Sbuf, in, job.contraction, job.moving_free, moving_offset));
    matmul.set_enum(F::acc, isa::AccumulateMode::Overwrite);
    sim::core::execute(matmul, spaces);

    std::vector<uint32_t> result(job.stationary_free * job.moving_free);
    for (uint32_t m = 0; m < job.stationary_free; ++m)
        for (uint32_t n = 0; n < job.moving_free; ++n)
            psum.read(m * spaces.psum_partition_bytes + n * 4ull,
                      reinterpret_cast<uint8_t*>(&result[m * job.moving_free + n]), 4);
    return result;
}

// ---- the comparison ---------------------------------------------------------------------------

Bench& bench() {
    static Bench* instance = new Bench("bench");  // one elaboration per process; SystemC owns it
    return *instance;
}

std::string describe(const MatmulJob& job) {
    static const char* names[] = {"int8", "bf16", "fp16", "fp32"};
    return fmt::format("{}{}x{}x{}", job.reuse_stationary ? "reuse " : "", job.contraction,
                       job.stationary_free, job.moving_free) +
           " " + names[uint32_t(job.dtype)];
}

// Runs the jobs back to back through both models; checks every result word and the cycle count.
void cosimulate(const std::string& name, const std::vector<MatmulJob>& jobs) {
    const config::NeuronCoreSpec core = scaled_to_array(chip_core());
    const BenchResult rtl = bench().run(array_config(core), jobs);

    std::vector<MatmulShape> shapes;
    std::string tiles;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const MatmulJob& job = jobs[i];
        shapes.push_back({job.contraction, job.stationary_free, job.moving_free, isa_dtype(job.dtype),
                          job.reuse_stationary, 0});
        tiles += (i ? ", " : "") + describe(job);
        const std::vector<uint32_t> fast = fast_model_matmul(job);
        const std::vector<uint32_t> reference = reference_matmul(job);
        ASSERT_EQ(fast, reference) << "fast model against the plain reference, " << describe(job);
        for (size_t w = 0; w < fast.size(); ++w)
            ASSERT_EQ(rtl.outputs[i][w], fast[w])
                << describe(job) << " partition " << w / job.moving_free << " element " << w % job.moving_free
                << fmt::format(": RTL {:#010x}, fast model {:#010x}", rtl.outputs[i][w], fast[w]);
    }
    const uint64_t model = sim::core::matmul_sequence_cycles(core, shapes);
    const double difference = (double(rtl.cycles) - double(model)) / double(model);
    std::printf("cosim %-28s rtl %6llu cycles  model %6llu cycles  diff %+lld (%+.2f%%)  [%s]\n", name.c_str(),
                (unsigned long long)rtl.cycles, (unsigned long long)model,
                (long long)rtl.cycles - (long long)model, 100 * difference, tiles.c_str());
    EXPECT_LE(std::abs(difference), kCycleTolerance) << name;
}

TEST(SystolicArrayCosim, ArrayIsBuiltWithTheConfiguredGeometry) {
    const config::NeuronCoreSpec core = scaled_to_array(chip_core());
    cosimulate("geometry probe", {[] { std::mt19937 rng(1); return random_job(1, 1, 1, ArrayDtype::Bf16, rng); }()});
    EXPECT_EQ(bench().geometry(), (std::vector<uint32_t>{Bench::kRows, Bench::kCols, Bench::kLoadCols}));
    EXPECT_EQ(Bench::kLoadCols, core.tensor.stationary_load_columns_per_cycle)
        << "sim/rtl was built with NSIM_RTL_LOAD_COLS other than the configured LoadStationary rate";
}

TEST(SystolicArrayCosim, Bf16FullTile) {
    std::mt19937 rng(2);
    cosimulate("bf16 full tile", {random_job(Bench::kRows, Bench::kCols, 4 * Bench::kCols, ArrayDtype::Bf16, rng)});
}

TEST(SystolicArrayCosim, Bf16TiledGemmBackToBack) {
    // A 48 x 32 x 64 GEMM as 3 contraction tiles x 2 stationary tiles, loads in the background.
    std::mt19937 rng(3);
    std::vector<MatmulJob> jobs;
    for (uint32_t m_tile = 0; m_tile < 2; ++m_tile)
        for (uint32_t k_tile = 0; k_tile < 3; ++k_tile)
            jobs.push_back(random_job(Bench::kRows, Bench::kCols, 64, ArrayDtype::Bf16, rng));
    cosimulate("bf16 tiled gemm 48x32x64", jobs);
}

TEST(SystolicArrayCosim, ShortStreamsHitTheMinimumInterval) {
    std::mt19937 rng(4);
    cosimulate("bf16 short streams", {random_job(16, 16, 3, ArrayDtype::Bf16, rng),
                                      random_job(16, 16, 1, ArrayDtype::Bf16, rng),
                                      random_job(16, 5, 2, ArrayDtype::Bf16, rng)});
}

TEST(SystolicArrayCosim, LoadLongerThanThePreviousStreamShows) {
    std::mt19937 rng(5);
    cosimulate("bf16 exposed load", {random_job(8, 2, 1, ArrayDtype::Bf16, rng),
                                     random_job(16, 16, 1, ArrayDtype::Bf16, rng),
                                     random_job(3, 16, 40, ArrayDtype::Bf16, rng)});
}

TEST(SystolicArrayCosim, SharedStationaryNeedsNoLoad) {
    std::mt19937 rng(6);
    const MatmulJob first = random_job(16, 16, 48, ArrayDtype::Bf16, rng);
    const MatmulJob second = reusing(first, 64, rng);
    const MatmulJob third = reusing(second, 5, rng);
    cosimulate("bf16 shared stationary", {first, second, third, random_job(16, 12, 64, ArrayDtype::Bf16, rng)});
}

TEST(SystolicArrayCosim, Fp32AtAQuarterRate) {
    std::mt19937 rng(7);
    cosimulate("fp32 quarter rate", {random_job(16, 12, 40, ArrayDtype::Fp32, rng),
                                     random_job(7, 16, 64, ArrayDtype::Fp32, rng)});
}

TEST(SystolicArrayCosim, Fp16RaggedShapes) {
    std::mt19937 rng(8);
    cosimulate("fp16 ragged", {random_job(5, 3, 7, ArrayDtype::Fp16, rng), random_job(16, 16, 1, ArrayDtype::Fp16, rng),
                               random_job(9, 13, 33, ArrayDtype::Fp16, rng)});
}

TEST(SystolicArrayCosim, Int8DoubleRowContraction) {
    std::mt19937 rng(9);
    cosimulate("int8 double row", {random_job(2 * Bench::kRows, 16, 64, ArrayDtype::Int8, rng),
                                   random_job(21, 5, 17, ArrayDtype::Int8, rng)});
}

TEST(SystolicArrayCosim, MixedTypesBackToBack) {
    std::mt19937 rng(10);
    cosimulate("mixed dtypes", {random_job(16, 16, 64, ArrayDtype::Bf16, rng), random_job(32, 8, 20, ArrayDtype::Int8, rng),
                                random_job(12, 16, 24, ArrayDtype::Fp32, rng), random_job(16, 16, 64, ArrayDtype::Fp16, rng)});
}

}  // namespace
}  // namespace nsim::rtl_test
