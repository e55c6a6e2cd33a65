// all_gather, reduce_scatter and all_reduce run by the engines of several cores (functional mode): each
// core loads its own source, the collective meets the other cores' and writes its destination in host
// memory, checked against references computed here from every core's input. Exact: a gather only moves values,
// the reduction's fp32 fold of inputs representable in the source type is what the reference computes.
#include <gtest/gtest.h>

#include <random>

#include "../semantics/semantics_test_support.h"  // element access in any dtype
#include "engine_test_support.h"

namespace nsim {
namespace {

using isa::DType;
using sim::core::ExecutionOptions;
namespace dtype = sim::core::dtype;
using sim::core::test::get;
using sim::core::test::put;

struct Collective {
    std::string instance;
    unsigned cores;
    DType type;     // of the sources (and of the gathered destination)
    std::string op; // of the reduce_scatter
};

constexpr unsigned kRows = 128, kCols = 16;

void check_collectives(const Collective& c) {
    const std::string t(isa::name_of(c.type));
    SCOPED_TRACE(c.instance + " " + std::to_string(c.cores) + " cores " + t + " reduce " + c.op);
    const unsigned n = c.cores, size = isa::size_in_bytes(c.type);
    const unsigned source_bytes = kRows * kCols * size, gathered_bytes = n * source_bytes;
    const unsigned part_rows = kRows / n, part_bytes = part_rows * kCols * 4;
    // Host tensors: X (each core's input), G (each core's gathered copy), R (each core's fp32 part),
    // A (each core's fp32 all-reduced copy).
    const uint64_t x_at = 0, g_at = uint64_t(n) * source_bytes, r_at = g_at + uint64_t(n) * gathered_bytes;
    const uint64_t a_at = r_at + uint64_t(n) * part_bytes, reduced_bytes = kRows * kCols * 4;
    std::string text = ".target v2\n.cores " + std::to_string(n) + "\n";
    text += ".tensor X input " + t + " [" + std::to_string(n * kRows) + ", 16] host " + std::to_string(x_at) + "\n";
    text += ".tensor G output " + t + " [" + std::to_string(n * n * kRows) + ", 16] host " + std::to_string(g_at) + "\n";
    text += ".tensor R output fp32 [" + std::to_string(n * part_rows) + ", 16] host " + std::to_string(r_at) + "\n";
    text += ".tensor A output fp32 [" + std::to_string(n * kRows) + ", 16] host " + std::to_string(a_at) + "\n";
    const std::string group = ", first_core=0, core_count=" + std::to_string(n);
    const std::string src = "src=" + t + " sbuf[0:128] +0 [[1,16]]";
    for (unsigned core = 0; core < n; ++core) {
        text += ".core " + std::to_string(core) + "\n";
        text += "dma0 dma_copy dst=" + t + " sbuf[0:128] +0 [[1,16]], src=" + t + " host:X +" +
                std::to_string(core * source_bytes) + " [[16,128],[1,16]]\n";
        text += "dma0 all_gather dst=" + t + " host:G +" + std::to_string(core * gathered_bytes) + " [[16," +
                std::to_string(n * kRows) + "],[1,16]], " + src + group + "\n";
        text += "dma0 reduce_scatter dst=fp32 host:R +" + std::to_string(core * part_bytes) + " [[16," +
                std::to_string(part_rows) + "],[1,16]], " + src + ", op=" + c.op + group + "\n";
        text += "dma0 all_reduce dst=fp32 host:A +" + std::to_string(core * reduced_bytes) + " [[16,128],[1,16]], " +
                src + ", op=" + c.op + group + "\n";
    }
    ExecutionOptions options;
    options.functional = true;
    test::EngineRun run(c.instance, test::assemble_program(text), options);
    sim::SparseMemory& host = run.platform->host_memory().storage();
    const uint64_t base = run.placement.host_region;

    std::mt19937 rng(7 + n);
    std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
    std::vector<std::vector<float>> x(n, std::vector<float>(kRows * kCols));
    for (unsigned core = 0; core < n; ++core)
        for (unsigned i = 0; i < kRows * kCols; ++i) {
            x[core][i] = dtype::round_to(c.type, dist(rng));
            put(host, base + x_at + core * source_bytes + i * size, c.type, x[core][i]);
        }
    run.run();

    // The element-wise reduction of every core's input, folded in core order in fp32.
    auto reduced = [&](unsigned element) {
        float want = x[0][element];
        for (unsigned from = 1; from < n; ++from)
            want = c.op == "add" ? want + x[from][element] : c.op == "max" ? std::max(want, x[from][element])
                                                                           : std::min(want, x[from][element]);
        return want;
    };
    for (unsigned core = 0; core < n; ++core) {
        // Every core: the sources of cores 0 .. n-1, one after another.
        for (unsigned from = 0; from < n; ++from)
            for (unsigned i = 0; i < kRows * kCols; ++i)
                ASSERT_EQ(get(host, base + g_at + core * gathered_bytes + (from * kRows * kCols + i) * size, c.type), x[from][i])
                    << "core " << core << " block " << from << " element " << i;
        // Core r: the r-th of n parts of the element-wise reduction, folded in core order in fp32.
        for (unsigned i = 0; i < part_rows * kCols; ++i) {
            const unsigned element = core * part_rows * kCols + i;
            ASSERT_EQ(get(host, base + r_at + core * part_bytes + i * 4, DType::Fp32), reduced(element))
                << "core " << core << " element " << i;
        }
        // Every core: the whole reduction.
        for (unsigned i = 0; i < kRows * kCols; ++i)
            ASSERT_EQ(get(host, base + a_at + core * reduced_bytes + i * 4, DType::Fp32), reduced(i))
                << "all_reduce core " << core << " element " << i;
    }
}

// One machine per test: SystemC elaborates once per process.
TEST(FunctionalCollectives, AllGatherAndReduceScatterOnTheTwoCoresOfADeviceBf16) {
    check_collectives({"trn1.2xlarge", 2, DType::Bf16, "add"});
}

TEST(FunctionalCollectives, AllGatherAndReduceScatterOnTheTwoCoresOfADeviceFp32) {
    check_collectives({"trn1.2xlarge", 2, DType::Fp32, "min"});
}

TEST(FunctionalCollectives, AllGatherAndReduceScatterAcrossLinkedDevices) {
    // Cores 0, 1 on device 0 and 2, 3 on device 1 (NeuronLink neighbours).
    check_collectives({"inf2.24xlarge", 4, DType::Fp16, "max"});
}

// trn1.32xlarge's rank sets (training.md A1.1): 8 ranks on the first row of the torus, 32 on all of it.
TEST(FunctionalCollectives, EightRanksOnTheTrn1TorusBf16) {
    check_collectives({"trn1.32xlarge", 8, DType::Bf16, "add"});
}

TEST(FunctionalCollectives, ThirtyTwoRanksOnTheTrn1TorusFp32) {
    check_collectives({"trn1.32xlarge", 32, DType::Fp32, "add"});
}

}  // namespace
}  // namespace nsim
