// The hand-scheduled 1024x1024x1024 bf16 GEMM on one NeuronCore-v2: correct against the plain C++
// reference, and visibly slower without double buffering.
//
// The bound: the 128 matmuls stream for 23.4 us (512 cycles at 2.8 GHz each), and the core's 16 DMA
// engines (17 GB/s each) move 6 MiB of A, B and C in 23.1 us - plus, since DMA descriptors are costed
// (configs dma_descriptor_s, one per partition row), 30 ns of engine time per row: the schedule's AT
// loads move 256 B rows (one 128-column m-tile of AT[K, M]), B and C 1 KiB rows, so descriptors add
// ~23 us and the DMA engines, not the tensor engine, bound the run (46.9 us at 16 engines). The
// schedule (kernels/gemm/gemm_kernel.h, tuned before descriptors were costed) measures 48.2 us,
// tensor engine 49.7% busy, within 3% of that bound; single-buffered 67.6 us, 35.3%. (Before
// descriptors: 27.1 us, 86.6% busy; single-buffered 50 us, 47.5%.) Loading AT in longer rows (several
// m-tiles per transfer) is what would bring the tensor engine back towards busy.
#include <gtest/gtest.h>

#include <cmath>

#include "core/cost_model.h"
#include "core/semantics/operand_bytes.h"
#include "engine_test_support.h"
#include "gemm/gemm_kernel.h"

namespace nsim {
namespace {

using kernels::GemmSchedule;
using kernels::GemmShape;
using test::v2_core;

double pe_busy(const test::EngineRun& run, const sim::core::RunStatistics& stats) {
    return sim::core::busy_percent(run.queue(stats, "core0.pe"), stats);
}

// C is stored in bf16 from an fp32 accumulation: within half a bf16 unit of the exact value, plus
// what a different fp32 summation order can change.
void expect_matches_reference(test::EngineRun& run, const GemmShape& shape) {
    const auto reference = kernels::gemm_reference(shape, kernels::gemm_inputs(shape));
    const isa::TensorInfo& c = run.program.tensors.at(2);
    ASSERT_EQ(c.name, "C");
    std::vector<uint16_t> stored(reference.size());
    run.device_memory().read(c.offset, reinterpret_cast<uint8_t*>(stored.data()), stored.size() * 2);
    size_t bad = 0;
    for (size_t i = 0; i < reference.size(); ++i) {
        const float got = kernels::from_bf16(stored[i]);
        const float tolerance = std::fabs(reference[i]) / 256.0f + 1e-3f;
        if (std::fabs(got - reference[i]) > tolerance && bad++ < 5)
            ADD_FAILURE() << "C[" << i / shape.n << "][" << i % shape.n << "] = " << got << ", reference " << reference[i];
    }
    EXPECT_EQ(bad, 0u);
}

// The time the core's DMA engines need for the program's transfers, their bytes and descriptors
// (one per contiguous run of the side cut into more), all engines moving all the time.
double dma_engine_bound_s(const isa::Container& program) {
    double engine_s = 0;
    for (const isa::InstructionStream& stream : program.streams)
        for (const isa::Instruction& inst : stream.instructions) {
            if (inst.opcode != isa::Opcode::DmaCopy) continue;
            const isa::AccessPattern& dst = inst.ap(isa::fields::DmaCopy::dst);
            const isa::AccessPattern& src = inst.ap(isa::fields::DmaCopy::src);
            const uint64_t descriptors = std::max(sim::core::contiguous_runs(dst), sim::core::contiguous_runs(src));
            engine_s += double(sim::core::CostModel::operand_bytes(dst)) / v2_core().dma_engine_bytes_per_s +
                        double(descriptors) * v2_core().dma_descriptor_s;
        }
    return engine_s / v2_core().dma_engines;
}

// Runs `schedule` with data on trn1.2xlarge, checks C against the reference and returns the tensor
// engine's busy %.
double expect_correct(const GemmShape& shape, const GemmSchedule& schedule) {
    sim::core::ExecutionOptions o;
    o.functional = true;
    test::EngineRun run("trn1.2xlarge", kernels::build_gemm(v2_core(), shape, schedule, true), o);
    const auto stats = run.run();
    expect_matches_reference(run, shape);
    const double busy = pe_busy(run, stats);
    std::cout << shape.m << "x" << shape.k << "x" << shape.n << " bf16 GEMM: " << stats.time_s * 1e6
              << " us, tensor engine busy " << busy << "%\n";
    return busy;
}

TEST(Gemm1024, DoubleBufferedIsCorrectAndKeepsTheDmaEnginesBusy) {
    const GemmShape shape{1024, 1024, 1024};
    sim::core::ExecutionOptions o;
    o.functional = true;
    test::EngineRun run("trn1.2xlarge", kernels::build_gemm(v2_core(), shape, GemmSchedule::double_buffered(), true), o);
    const auto stats = run.run();
    expect_matches_reference(run, shape);
    const double bound = dma_engine_bound_s(run.program);
    std::cout << "1024x1024x1024 bf16 GEMM: " << stats.time_s * 1e6 << " us, DMA engine bound " << bound * 1e6
              << " us, tensor engine busy " << pe_busy(run, stats) << "%\n";
    EXPECT_LT(stats.time_s, 1.1 * bound);
}

TEST(Gemm1024, WithoutDoubleBufferingTheTensorEngineWaitsVisibly) {
    // Both schedules one after the other on the same machine (one elaboration per process).
    const GemmShape shape{1024, 1024, 1024};
    auto platform = test::elaborate("trn1.2xlarge");
    sim::core::ExecutionOptions o;
    o.trace = true;
    struct Result {
        sim::core::RunStatistics stats;
        double pe_busy = 0;
        size_t matmuls = 0;
    };
    auto run = [&](const GemmSchedule& schedule) {
        const isa::Container program = kernels::build_gemm(v2_core(), shape, schedule, false);
        const auto placement = sim::core::place_program(program, *platform);
        sim::core::EngineScheduler engines(*platform, program, placement, o);
        Result r;
        r.stats = engines.run();
        for (const auto& q : r.stats.queues)
            if (q.name == "core0.pe") r.pe_busy = sim::core::busy_percent(q, r.stats);
        const nlohmann::json trace = engines.trace().to_json();
        for (const auto& e : trace["traceEvents"]) r.matmuls += e["ph"] == "X" && e["name"] == "matmul";
        return r;
    };
    const Result fast = run(GemmSchedule::double_buffered());
    const Result slow = run(GemmSchedule::single_buffered());
    std::cout << "single-buffered: " << slow.stats.time_s * 1e6 << " us, tensor engine busy " << slow.pe_busy << "%\n";
    // Both are bound by the DMA engines (see the top); double buffering still overlaps what single
    // buffering serialises.
    EXPECT_GT(slow.stats.time_s, 1.3 * fast.stats.time_s);
    EXPECT_GT(fast.pe_busy, 1.3 * slow.pe_busy);
    // Both do the 8 x 8 x 2 matmuls; the double-buffered schedule cuts the last output tile's 8 into
    // 4 x 8 narrower ones (256, 128, 64, 64 columns).
    EXPECT_EQ(fast.matmuls, 128u - 8u + 4u * 8u);
    EXPECT_EQ(slow.matmuls, 128u);
}

TEST(GemmSmall, SingleBufferedScheduleIsCorrectToo) {
    expect_correct(GemmShape{256, 256, 1024}, GemmSchedule::single_buffered());
}

TEST(GemmSmall, DoubleBufferedScheduleIsCorrectOnAnUnevenShape) {
    // 5 m-tiles: the group of 4, then one later m-tile alone in its step (with the halved last tile).
    expect_correct(GemmShape{640, 512, 1024}, GemmSchedule::double_buffered());
}

TEST(GemmBuilder, RejectsSchedulesThatDoNotFitTheCore) {
    GemmSchedule too_many_queues = GemmSchedule::double_buffered();
    too_many_queues.load_lanes = v2_core().dma_queues_per_engine;
    EXPECT_THROW(kernels::build_gemm(v2_core(), GemmShape{}, too_many_queues, false), std::invalid_argument);
    GemmSchedule odd_tail = GemmSchedule::double_buffered();
    odd_tail.tail_min_n = 96;  // 512 / 96 is not a power of two
    EXPECT_THROW(kernels::build_gemm(v2_core(), GemmShape{}, odd_tail, false), std::invalid_argument);
    GemmSchedule big_group = GemmSchedule::double_buffered();
    big_group.group_m_tiles = 8;  // 8 m-tiles x 2 n-tiles open at once, 8 PSUM banks
    EXPECT_THROW(kernels::build_gemm(v2_core(), GemmShape{}, big_group, false), std::invalid_argument);
}

TEST(GemmBuilder, RejectsShapesThatDoNotTile) {
    EXPECT_THROW(kernels::build_gemm(v2_core(), GemmShape{1000, 1024, 1024}, GemmSchedule::double_buffered(), false),
                 std::invalid_argument);
}

}  // namespace
}  // namespace nsim
