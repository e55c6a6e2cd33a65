// The engine queues: in-order issue, semaphore ordering, DMA timing and contention over shared
// resources, deadlock reports, iterations, timing-only runs that touch no data, functional results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <algorithm>

#include "core/cost_model.h"
#include "engine_test_support.h"

namespace nsim {
namespace {

using sim::core::ExecutionOptions;
using test::EngineRun;
using test::v2_core;
using test::traced_options;

const std::string kTrn1 = "trn1.2xlarge";

std::string program(const std::string& body, const std::string& header = ".target v2\n.cores 1\n") {
    return header + body;
}

double us(const nlohmann::json& slice, const char* field) { return slice[field].get<double>(); }

const std::string kTwoDve =
    ".sem done 0\n.core 0\n"
    "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]]\n"
    "dve tensor_copy dst=fp32 sbuf[0:128] +16384 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]], signal=done\n"
    "act activation dst=fp32 sbuf[0:128] +32768 [[1,1024]], src=fp32 sbuf[0:128] +16384 [[1,1024]], func=relu, "
    "scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=done>=1\n";

TEST(EngineQueues, AnEngineIssuesInOrderAndAWaitEndsWhenTheSignalIsVisible) {
    EngineRun run(kTrn1, test::assemble_program(program(kTwoDve)), traced_options());
    const auto stats = run.run();
    const auto slices = run.slices();
    ASSERT_EQ(slices.size(), 3u);
    const double dve_ps = test::cycles_ps(v2_core(), "vector", 1024);  // max(MIN_II, 1024) per copy
    // dve: back to back from time 0
    EXPECT_NEAR(us(slices[0], "ts"), 0.0, 1e-6);
    EXPECT_NEAR(us(slices[0], "dur") * 1e6, dve_ps, 2);
    EXPECT_NEAR(us(slices[1], "ts") * 1e6, dve_ps, 2);
    // act starts when the second copy's result is visible: its end plus the vector engine's result latency
    double latency_cycles = 0;
    for (const auto& e : v2_core().engines)
        if (e.name == "vector") latency_cycles = e.result_latency_cycles ? e.result_latency_cycles : v2_core().sram_access_latency_cycles;
    const double visible = 2 * dve_ps + test::cycles_ps(v2_core(), "vector", latency_cycles);
    EXPECT_NEAR(us(slices[2], "ts") * 1e6, visible, 3);
    const double act_ps = test::cycles_ps(v2_core(), "scalar", 1024);
    EXPECT_NEAR(stats.time_s * 1e12, visible + act_ps, 4);
    EXPECT_EQ(stats.instructions, 3u);
    EXPECT_NEAR(run.queue(stats, "core0.dve").busy_s * 1e12, 2 * dve_ps, 2);
    EXPECT_NEAR(run.queue(stats, "core0.act").semaphore_wait_s * 1e12, visible, 3);
}

TEST(EngineQueues, SemSetRearmsAndIterationsRepeatTheProgram) {
    ExecutionOptions o = traced_options();
    o.iterations = 3;
    EngineRun run(kTrn1, test::assemble_program(program(kTwoDve)), o);
    const auto stats = run.run();
    ASSERT_EQ(stats.iteration_s.size(), 3u);
    EXPECT_EQ(stats.instructions, 9u);
    EXPECT_NEAR(stats.iteration_s[1], stats.iteration_s[0], 1e-12);
    EXPECT_NEAR(stats.time_s, 3 * stats.iteration_s[0], 1e-11);
    EXPECT_EQ(run.slices().size(), 9u);
}

// A mark records when its queue reached it, relative to its iteration, and changes no timing: the
// program with marks on both queues takes what it takes without them (a training step's breakdown
// rests on this).
TEST(EngineQueues, AMarkRecordsWhenItsQueueReachedItAndCostsNothing) {
    const std::string marked =
        ".sem done 0\n.core 0\n"
        "act mark label=0\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]]\n"
        "dve mark label=0\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +16384 [[1,1024]], src=fp32 sbuf[0:128] +8192 [[1,1024]], signal=done\n"
        "dve mark label=1\n"
        "act activation dst=fp32 sbuf[0:128] +32768 [[1,1024]], src=fp32 sbuf[0:128] +16384 [[1,1024]], func=relu, "
        "scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=done>=1\n"
        "act mark label=1\n";
    ExecutionOptions o;
    o.iterations = 2;
    const auto stats = EngineRun(kTrn1, test::assemble_program(program(marked)), o).run();
    ASSERT_EQ(stats.marks.size(), 8u);
    const double dve_ps = test::cycles_ps(v2_core(), "vector", 1024);
    // Each iteration takes what kTwoDve takes without marks (AnEngineIssuesInOrder...).
    double latency_cycles = 0;
    for (const auto& e : v2_core().engines)
        if (e.name == "vector") latency_cycles = e.result_latency_cycles ? e.result_latency_cycles : v2_core().sram_access_latency_cycles;
    const double unmarked = 2 * dve_ps + test::cycles_ps(v2_core(), "vector", latency_cycles) + test::cycles_ps(v2_core(), "scalar", 1024);
    std::map<std::tuple<uint32_t, uint32_t>, std::vector<double>> by_iteration_label;  // times in ps
    for (const auto& m : stats.marks) {
        EXPECT_EQ(m.core, 0u);
        by_iteration_label[{m.iteration, m.label}].push_back(m.time_s * 1e12);
    }
    for (uint32_t iteration : {0u, 1u}) {
        std::vector<double> first = by_iteration_label[{iteration, 0}], second = by_iteration_label[{iteration, 1}];
        ASSERT_EQ(first.size(), 2u);
        ASSERT_EQ(second.size(), 2u);
        std::sort(first.begin(), first.end());
        std::sort(second.begin(), second.end());
        EXPECT_NEAR(first[0], 0.0, 1e-6);        // act's, at the head of its queue
        EXPECT_NEAR(first[1], dve_ps, 2);        // dve's, after its first copy
        EXPECT_NEAR(second[0], 2 * dve_ps, 2);   // dve's, after its second
        EXPECT_NEAR(second[1], stats.iteration_s[iteration] * 1e12, 2);  // act's, the last instruction of the iteration
        EXPECT_NEAR(stats.iteration_s[iteration] * 1e12, unmarked, 4);
    }
}

// One DMA: the fixed overhead, then the bytes at the slowest of the engine and the memory channel;
// the engine also processes a descriptor per SBUF partition row.
TEST(Dma, ATransferTakesItsOverheadPlusItsBytesAtTheEngineRate) {
    const std::string text = program(
        ".tensor X input fp32 [128, 2048] device 0x0\n.core 0\n"
        "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,2048]], src=fp32 dram:X +0 [[2048,128],[1,2048]]\n");
    EngineRun run(kTrn1, test::assemble_program(text));
    const auto stats = run.run();
    const double bytes = 128.0 * 2048 * 4;
    const auto& chip = test::shipped_configs().chip("trainium1");
    const double expected = v2_core().dma_transfer_overhead_s + bytes / v2_core().dma_engine_bytes_per_s +
                            128 * v2_core().dma_descriptor_s + chip.memory.latency_s;
    EXPECT_NEAR(stats.time_s, expected, expected * 0.01);
    EXPECT_EQ(stats.dma_bytes, uint64_t(bytes));
    EXPECT_EQ(stats.device_memory_bytes, uint64_t(bytes));
}

// A DMA of `bytes` from X into SBUF on queue `queue` of the current core.
std::string load(unsigned queue, unsigned index, uint64_t bytes, const std::string& sync) {
    const uint64_t elements = bytes / 4 / 128;
    return "dma" + std::to_string(queue) + " dma_copy dst=fp32 sbuf[0:128] +" + std::to_string(index * elements * 4 % 65536) +
           " [[1," + std::to_string(elements) + "]], src=fp32 dram:X +" + std::to_string(index * bytes) + " [[" +
           std::to_string(elements) + ",128],[1," + std::to_string(elements) + "]]" + sync + "\n";
}

// Start and end (us) of the slices with args.instruction in [first, last] on tracks named `queue_prefix*`.
std::pair<double, double> span(const std::vector<nlohmann::json>& slices, const std::set<std::string>& names,
                               const EngineRun& run, int pid) {
    (void)run;
    double begin = 1e300, end = 0;
    for (const auto& s : slices) {
        if (s["pid"].get<int>() != pid || !names.count(s["cat"].get<std::string>())) continue;
        begin = std::min(begin, us(s, "ts"));
        end = std::max(end, us(s, "ts") + us(s, "dur"));
    }
    return {begin, end};
}

TEST(Dma, QueuesOfOneEngineShareItsBandwidth) {
    // Phase 1: dma0 alone. Phase 2: dma16 (same engine as dma0: queue mod engines) and dma32 (also
    // engine 0) together. Phase 3: dma1 and dma2 (two other engines) together.
    const uint64_t bytes = 1 << 20;
    std::string text = ".target v2\n.cores 1\n.tensor X input fp32 [128, 16384] device 0x0\n.sem a 0\n.sem b 1\n.core 0\n";
    text += load(0, 0, bytes, ", signal=a");
    text += load(16, 1, bytes, ", wait=a>=1, signal=b");
    text += load(32, 2, bytes, ", wait=a>=1, signal=b");
    text += load(1, 3, bytes, ", wait=b>=2");
    text += load(2, 4, bytes, ", wait=b>=2");
    EngineRun run(kTrn1, test::assemble_program(text), traced_options());
    run.run();
    const auto slices = run.slices();
    const auto alone = span(slices, {"dma0"}, run, 0);
    const auto shared = span(slices, {"dma16", "dma32"}, run, 0);
    const auto separate = span(slices, {"dma1", "dma2"}, run, 0);
    // What one more DMA on the engine adds: its bytes and its descriptors (one per partition row).
    const double transfer_us = (double(bytes) / v2_core().dma_engine_bytes_per_s + 128 * v2_core().dma_descriptor_s) * 1e6;
    const double one = alone.second - alone.first;
    EXPECT_NEAR((shared.second - shared.first) - one, transfer_us, transfer_us * 0.02);
    EXPECT_NEAR(separate.second - separate.first, one, transfer_us * 0.02);
}

// DMABW (hardware.md 3.1): short rows per partition cannot keep a DMA engine busy with data. The
// same 512 KiB as 128 partition rows of 4 KiB (dma0, engine 0) takes (128 - 16) descriptors longer
// than as 16 rows of 32 KiB (dma1, engine 1), both at once from one memory channel that outpaces them.
TEST(Dma, EachPartitionRowIsADescriptorTheEngineProcesses) {
    ASSERT_GT(v2_core().dma_descriptor_s, 0);
    const std::string text = program(
        ".tensor X input fp32 [128, 1024] device 0x0\n.tensor Y input fp32 [16, 8192] device 0x100000\n.core 0\n"
        "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 dram:X +0 [[1024,128],[1,1024]]\n"
        "dma1 dma_copy dst=fp32 sbuf[0:16] +4096 [[1,8192]], src=fp32 dram:Y +0 [[8192,16],[1,8192]]\n");
    EngineRun run(kTrn1, test::assemble_program(text), traced_options());
    run.run();
    const auto slices = run.slices();
    const auto rows128 = span(slices, {"dma0"}, run, 0), rows16 = span(slices, {"dma1"}, run, 0);
    const double longer_s = ((rows128.second - rows128.first) - (rows16.second - rows16.first)) * 1e-6;
    EXPECT_NEAR(longer_s, 112 * v2_core().dma_descriptor_s, 1e-9);
}

// Core 0's 16 DMA engines each load `bytes` of tensor X alone; then both cores of trn1 meet at a
// barrier and each loads the same amount with all its engines together. X has `role`.
struct TwoPhaseLoads {
    std::set<std::string> first, second;  // phase 1's and phase 2's DMA queues
    std::string text;
    TwoPhaseLoads(const std::string& role, unsigned engines, uint64_t bytes) {
        text = ".target v2\n.cores 2\n.tensor X " + role + " fp32 [128, 262144] device 0x0\n.sem alone 0\n.sem go 1\n";
        for (unsigned c = 0; c < 2; ++c) {
            text += ".core " + std::to_string(c) + "\n";
            for (unsigned q = 0; c == 0 && q < engines; ++q) text += load(q, q, bytes, ", signal=alone");
            if (c == 0) text += "sp nop wait=alone>=" + std::to_string(engines) + "\n";
            text += "sp barrier first_core=0, core_count=2, signal=go\n";
            for (unsigned q = 0; q < engines; ++q) text += load(16 + q, 16 + q + c * engines, bytes, ", wait=go>=1");
        }
        for (unsigned q = 0; q < engines; ++q) first.insert("dma" + std::to_string(q)), second.insert("dma" + std::to_string(16 + q));
    }
    // Microseconds: core 0 alone, and both cores together.
    std::pair<double, double> durations(const EngineRun& run) const {
        const auto slices = run.slices();
        const auto alone = span(slices, first, run, 0);
        const auto together0 = span(slices, second, run, 0), together1 = span(slices, second, run, 1);
        return {alone.second - alone.first,
                std::max(together0.second, together1.second) - std::min(together0.first, together1.first)};
    }
};

// What every DMA engine of a trn1 device moves together at most (configs dma_engine_sustained_bytes_per_s).
double fabric_bytes_per_s() {
    const auto& chip = test::shipped_configs().chip("trainium1");
    return v2_core().dma_engine_sustained_bytes_per_s * v2_core().dma_engines * chip.cores_per_device;
}

TEST(Dma, EnginesOfBothCoresContendForTheDeviceMemory) {
    // 32 engines of two cores together ask the memory channel for twice what 16 of one core do, and
    // for more than it has, so the same per-core work takes longer. An input lives once, in the home
    // channel (next to core 0), so both cores read it there; the channel is slower than the
    // device's DMA fabric, so it is the bound.
    const auto& chip = test::shipped_configs().chip("trainium1");
    const double channel = chip.memory.channel_bytes_per_s();
    const unsigned engines = v2_core().dma_engines;
    ASSERT_GT(2 * engines * v2_core().dma_engine_bytes_per_s, channel);
    ASSERT_LT(channel, fabric_bytes_per_s());
    const uint64_t bytes = 1 << 20;
    const TwoPhaseLoads loads("input", engines, bytes);
    EngineRun run(kTrn1, test::assemble_program(loads.text), traced_options());
    const auto stats = run.run();
    const auto [one_core, two_cores] = loads.durations(run);
    EXPECT_GT(two_cores, one_core * 1.1);
    // Both cores' bytes then cross the channel at its own rate.
    const double all_bytes = 2.0 * engines * double(bytes);
    EXPECT_NEAR(two_cores, (v2_core().dma_transfer_overhead_s + all_bytes / channel) * 1e6, all_bytes / channel * 1e6 * 0.05);
    EXPECT_EQ(stats.device_memory_bytes, 3 * engines * bytes);
    EXPECT_EQ(run.platform->devices()[0]->memory_channels()[0]->timing().bytes_moved(), 3 * engines * bytes);
}

TEST(Dma, EachCoreStreamsItsWeightsFromItsOwnChannelThroughTheSharedDmaFabric) {
    // The same loads from a weight: each core of trn1 reads the copy in its own HBM, and each
    // channel carries its core's bytes. One core alone streams faster than its even share of the
    // device's DMA fabric (its engines' peak, or its channel); both cores at once share the fabric,
    // so together they take as long as all their bytes through it.
    const unsigned engines = v2_core().dma_engines;
    const auto& chip = test::shipped_configs().chip("trainium1");
    const double fabric = fabric_bytes_per_s();
    ASSERT_GT(fabric, 0);
    ASSERT_GT(std::min(engines * v2_core().dma_engine_bytes_per_s, chip.memory.channel_bytes_per_s()), fabric / 2);
    ASSERT_LT(fabric, 2 * chip.memory.channel_bytes_per_s());
    const uint64_t bytes = 1 << 20;
    const TwoPhaseLoads loads("weight", engines, bytes);
    EngineRun run(kTrn1, test::assemble_program(loads.text), traced_options());
    const auto stats = run.run();
    const auto [one_core, two_cores] = loads.durations(run);
    // On the fabric each load also carries what its 128 partition-row descriptors cost its engine's
    // sustained share (configs dma_descriptor_s).
    const uint64_t descriptor_bytes =
        uint64_t(std::llround(128 * v2_core().dma_descriptor_s * v2_core().dma_engine_sustained_bytes_per_s));
    const double core_bytes = double(engines) * double(bytes + descriptor_bytes);
    EXPECT_LT(one_core, (v2_core().dma_transfer_overhead_s + core_bytes / (fabric / 2)) * 1e6 * 0.9);
    EXPECT_NEAR(two_cores, (v2_core().dma_transfer_overhead_s + 2 * core_bytes / fabric) * 1e6, 2 * core_bytes / fabric * 1e6 * 0.02);
    EXPECT_EQ(run.platform->devices()[0]->dma_fabric()->bytes_moved(), 3 * engines * (bytes + descriptor_bytes));
    const auto& channels = run.platform->devices()[0]->memory_channels();
    EXPECT_EQ(channels[0]->timing().bytes_moved(), 2 * engines * bytes);
    EXPECT_EQ(channels[1]->timing().bytes_moved(), engines * bytes);
    EXPECT_EQ(stats.device_memory_bytes, 3 * engines * bytes);
}

// Inferentia's DMA fabric (configs nc-v1.yaml dma_engine_sustained_bytes_per_s, NC-v2's ratios): one
// core streaming its weights with its 3 engines is bound by those engines' peak, as before the fabric;
// all 4 cores at once are bound by the fabric, not by their engines' peak nor by the two DDR channels.
const config::ChipSpec& inferentia() { return test::shipped_configs().chip("inferentia"); }

// Seconds for `cores` cores of inf1 to load 1 MiB of their weight copy on each of their DMA engines at once.
double inferentia_weight_streams_s(unsigned cores) {
    const unsigned engines = inferentia().core.dma_engines;
    std::string text = ".target v1\n.cores " + std::to_string(cores) + "\n.tensor X weight fp32 [128, 32768] device 0x0\n";
    for (unsigned c = 0; c < cores; ++c) {
        text += ".core " + std::to_string(c) + "\n";
        for (unsigned q = 0; q < engines; ++q) text += load(q, q, 1 << 20, "");
    }
    EngineRun run("inf1.2xlarge", test::assemble_program(text));
    const auto stats = run.run();
    const sim::BandwidthModel* fabric = run.platform->devices()[0]->dma_fabric();
    if (!fabric) {
        ADD_FAILURE() << "inferentia has no DMA fabric (dma_engine_sustained_bytes_per_s)";
        return 0;
    }
    EXPECT_GT(fabric->bytes_moved(), uint64_t(cores) * engines << 20);
    return stats.time_s;
}

// A 1 MiB load is 128 partition rows: 128 descriptors, charged at `bytes_per_s` for dma_descriptor_s each.
double with_descriptors(const config::NeuronCoreSpec& core, double bytes_per_s) {
    return double(1 << 20) + 128 * core.dma_descriptor_s * bytes_per_s;
}

TEST(Dma, OneInferentiaCoreStreamsAtItsEnginesPeakUnderTheDeviceDmaFabric) {
    const config::NeuronCoreSpec& v1 = inferentia().core;
    const double fabric = v1.dma_engine_sustained_bytes_per_s * v1.dma_engines * inferentia().cores_per_device;
    ASSERT_GT(fabric, v1.dma_engines * v1.dma_engine_bytes_per_s);
    const double engine_s = with_descriptors(v1, v1.dma_engine_bytes_per_s) / v1.dma_engine_bytes_per_s;
    EXPECT_NEAR(inferentia_weight_streams_s(1), v1.dma_transfer_overhead_s + engine_s, engine_s * 0.03);
}

TEST(Dma, AllInferentiaCoresStreamingTogetherShareTheDeviceDmaFabric) {
    const config::ChipSpec& chip = inferentia();
    const config::NeuronCoreSpec& v1 = chip.core;
    const double fabric = v1.dma_engine_sustained_bytes_per_s * v1.dma_engines * chip.cores_per_device;
    ASSERT_LT(fabric, chip.cores_per_device * v1.dma_engines * v1.dma_engine_bytes_per_s);
    ASSERT_LT(fabric, chip.memory.channels * chip.memory.channel_bytes_per_s());
    const double device_bytes =
        double(chip.cores_per_device * v1.dma_engines) * with_descriptors(v1, v1.dma_engine_sustained_bytes_per_s);
    EXPECT_NEAR(inferentia_weight_streams_s(chip.cores_per_device), v1.dma_transfer_overhead_s + device_bytes / fabric,
                device_bytes / fabric * 0.03);
}

TEST(Dma, HostTransfersCrossPcie) {
    const std::string text = program(
        ".tensor H input fp32 [128, 2048] host 0x0\n.core 0\n"
        "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,1024]], src=fp32 host:H +0 [[2048,128],[1,1024]]\n"
        "dma1 dma_copy dst=fp32 sbuf[0:128] +4096 [[1,1024]], src=fp32 host:H +4096 [[2048,128],[1,1024]]\n");
    const auto stats = EngineRun(kTrn1, test::assemble_program(text)).run();
    const auto& chip = test::shipped_configs().chip("trainium1");
    EXPECT_EQ(stats.pcie_bytes, 2u * 128 * 1024 * 4);
    // Two engines together are faster than the link; the link is the bottleneck.
    ASSERT_GT(2 * v2_core().dma_engine_bytes_per_s, chip.pcie.bytes_per_s);
    const double expected = v2_core().dma_transfer_overhead_s + double(stats.pcie_bytes) / chip.pcie.bytes_per_s;
    EXPECT_NEAR(stats.time_s, expected, expected * 0.03);
}

TEST(Deadlock, IsReportedWithEachQueuesPendingInstructionAndTheSemaphores) {
    const std::string text = program(
        ".sem ping 0\n.sem pong 1\n.core 0\n"
        "act tensor_copy dst=fp32 sbuf[0:128] +0 [[1,64]], src=fp32 sbuf[0:128] +256 [[1,64]], signal=ping\n"
        "act nop wait=pong>=1\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +512 [[1,64]], src=fp32 sbuf[0:128] +256 [[1,64]], wait=ping>=2, signal=pong\n"
        "pe nop\n");
    EngineRun run(kTrn1, test::assemble_program(text));
    try {
        run.run();
        FAIL() << "no deadlock reported";
    } catch (const sim::core::DeadlockError& e) {
        const std::string report = e.what();
        EXPECT_NE(report.find("deadlock at"), std::string::npos) << report;
        EXPECT_NE(report.find("core 0 queue act: instruction 1 waits for pong >= 1 (it is 0): act nop wait=pong>=1"),
                  std::string::npos) << report;
        EXPECT_NE(report.find("core 0 queue dve: instruction 0 waits for ping >= 2 (it is 1): dve tensor_copy"),
                  std::string::npos) << report;
        EXPECT_NE(report.find("core 0 queue pe: finished"), std::string::npos) << report;
        EXPECT_NE(report.find("semaphores of core 0: ping=1, pong=0"), std::string::npos) << report;
    }
}

TEST(Deadlock, ACollectiveWhosePeerNeverComesIsReported) {
    const std::string text = ".target v2\n.cores 2\n.tensor G scratch fp32 [128, 64] device 0x0\n"
                             ".core 0\n"
                             "dma0 all_reduce dst=fp32 dram:G +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], op=add, "
                             "first_core=0, core_count=2\n"
                             ".core 1\nact nop\n";
    EngineRun run(kTrn1, test::assemble_program(text));
    try {
        run.run();
        FAIL() << "no deadlock reported";
    } catch (const sim::core::DeadlockError& e) {
        EXPECT_NE(std::string(e.what()).find("core 0 queue dma0: instruction 0 waits for the other cores of its all_reduce"),
                  std::string::npos) << e.what();
    }
}

TEST(Trace, HasOneTrackPerQueueAndOneSlicePerInstruction) {
    const std::string text = program(
        ".tensor X input fp32 [128, 64] device 0x0\n.sem s 0\n.core 0\n"
        "dma3 dma_copy dst=fp32 sbuf[0:128] +0 [[1,64]], src=fp32 dram:X +0 [[64,128],[1,64]], signal=s\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +512 [[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], wait=s>=1\n"
        "dve tensor_copy dst=fp32 sbuf[0:128] +1024 [[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]]\n");
    EngineRun run(kTrn1, test::assemble_program(text), traced_options());
    run.run();
    const nlohmann::json trace = nlohmann::json::parse(
        [&] { std::ostringstream out; run.engines->trace().write(out); return out.str(); }());
    ASSERT_TRUE(trace.contains("traceEvents"));
    std::map<int, std::string> threads;
    int processes = 0, complete = 0, waits = 0;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name") threads[e["tid"].get<int>()] = e["args"]["name"];
        if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
        if (e["ph"] == "X") {
            // dve's first instruction waits for the DMA: a wait slice on dve, then the instruction.
            if (e["cat"] == "wait") {
                ++waits;
                EXPECT_EQ(threads[e["tid"].get<int>()], "dve");
                EXPECT_EQ(e["args"]["semaphore"], "s");
                EXPECT_EQ(e["args"]["value"], 1);
            } else {
                ++complete;
                EXPECT_TRUE(e["args"].contains("operands")) << e.dump();
            }
            for (const char* key : {"name", "ts", "dur", "pid", "tid", "args"}) EXPECT_TRUE(e.contains(key)) << key;
            EXPECT_TRUE(threads.count(e["tid"].get<int>()));
        }
    }
    EXPECT_EQ(processes, 1);
    EXPECT_EQ(complete, 3);
    EXPECT_EQ(waits, 1);
    std::set<std::string> names;
    for (const auto& [tid, name] : threads) names.insert(name);
    EXPECT_EQ(names, (std::set<std::string>{"dma3", "dve"}));
}

// --- data ---------------------------------------------------------------------------------------

void put_floats(sim::SparseMemory& memory, uint64_t at, const std::vector<float>& values) {
    memory.write(at, reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4);
}
std::vector<float> get_floats(sim::SparseMemory& memory, uint64_t at, size_t n) {
    std::vector<float> v(n);
    memory.read(at, reinterpret_cast<uint8_t*>(v.data()), n * 4);
    return v;
}

const std::string kScaleProgram =
    ".target v2\n.cores 1\n.tensor X input fp32 [128, 16] device 0x0\n.tensor Y output fp32 [128, 16] device 0x2000\n"
    ".sem in 0\n.sem out 1\n.core 0\n"
    "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,16]], src=fp32 dram:X +0 [[16,128],[1,16]], signal=in\n"
    "act activation dst=fp32 sbuf[0:128] +64 [[1,16]], src=fp32 sbuf[0:128] +0 [[1,16]], func=identity, scale=3, bias=none, "
    "reduce_op=none, reduce_dst=none, wait=in>=1, signal=out\n"
    "dma1 dma_copy dst=fp32 dram:Y +0 [[16,128],[1,16]], src=fp32 sbuf[0:128] +64 [[1,16]], wait=out>=1\n";

TEST(Functional, InstructionsComputeInOrderOfTheirSemaphores) {
    ExecutionOptions o;
    o.functional = true;
    EngineRun run(kTrn1, test::assemble_program(kScaleProgram), o);
    std::vector<float> x(128 * 16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) * 0.5f - 100.0f;
    put_floats(run.device_memory(), 0x0, x);
    run.run();
    const std::vector<float> y = get_floats(run.device_memory(), 0x2000, x.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i] * 3.0f) << i;
}

TEST(TimingOnly, TouchesNoData) {
    EngineRun run(kTrn1, test::assemble_program(kScaleProgram));
    const auto stats = run.run();
    EXPECT_GT(stats.time_s, 0);
    auto& core = *run.platform->devices()[0]->cores()[0];
    EXPECT_EQ(core.sbuf().storage().resident_bytes(), 0u);
    EXPECT_EQ(core.psum().storage().resident_bytes(), 0u);
    EXPECT_EQ(run.device_memory().resident_bytes(), 0u);
}

TEST(Functional, AllReduceSumsTheCoresSourcesIntoEveryDestination) {
    const std::string text =
        ".target v2\n.cores 2\n.tensor X input fp32 [2, 128, 8] device 0x0\n.tensor Y output fp32 [2, 128, 8] device 0x4000\n"
        ".sem in 0\n"
        ".core 0\n"
        "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,8]], src=fp32 dram:X +0 [[8,128],[1,8]], signal=in\n"
        "dma0 all_reduce dst=fp32 dram:Y +0 [[8,128],[1,8]], src=fp32 sbuf[0:128] +0 [[1,8]], op=add, first_core=0, "
        "core_count=2, wait=in>=1\n"
        ".core 1\n"
        "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,8]], src=fp32 dram:X +4096 [[8,128],[1,8]], signal=in\n"
        "dma0 all_reduce dst=fp32 dram:Y +4096 [[8,128],[1,8]], src=fp32 sbuf[0:128] +0 [[1,8]], op=add, first_core=0, "
        "core_count=2, wait=in>=1\n";
    ExecutionOptions o;
    o.functional = true;
    EngineRun run(kTrn1, test::assemble_program(text), o);
    std::vector<float> x(2 * 128 * 8);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 977) * 0.25f;
    put_floats(run.device_memory(), 0x0, x);
    const auto stats = run.run();
    const std::vector<float> y = get_floats(run.device_memory(), 0x4000, x.size());
    for (size_t i = 0; i < 128 * 8; ++i) {
        ASSERT_EQ(y[i], x[i] + x[i + 1024]) << i;
        ASSERT_EQ(y[i + 1024], x[i] + x[i + 1024]) << i;
    }
    // ring: 2 (n - 1) steps, each core sending half of its 4 KiB
    EXPECT_EQ(run.queue(stats, "core0.dma0").bytes, 128u * 8 * 4 + 2u * 2048);
}

TEST(Functional, SendDeliversToTheMatchingRecv) {
    const std::string text =
        ".target v2\n.cores 2\n.tensor X input fp32 [128, 4] device 0x0\n.tensor Y output bf16 [128, 4] device 0x1000\n"
        ".sem got 0\n"
        ".core 0\n"
        "dma1 send src=fp32 dram:X +0 [[4,128],[1,4]], peer_core=1, channel=5\n"
        ".core 1\n"
        "dma1 recv dst=bf16 sbuf[0:128] +0 [[1,4]], peer_core=0, channel=5, signal=got\n"
        "dma2 dma_copy dst=bf16 dram:Y +0 [[4,128],[1,4]], src=bf16 sbuf[0:128] +0 [[1,4]], wait=got>=1\n";
    ExecutionOptions o;
    o.functional = true;
    EngineRun run(kTrn1, test::assemble_program(text), o);
    std::vector<float> x(128 * 4);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);  // exact in bf16 up to 256, rounded above
    put_floats(run.device_memory(), 0x0, x);
    run.run();
    std::vector<uint16_t> y(x.size());
    run.device_memory().read(0x1000, reinterpret_cast<uint8_t*>(y.data()), y.size() * 2);
    for (size_t i = 0; i < x.size(); ++i) {
        uint32_t bits = uint32_t(y[i]) << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        ASSERT_NEAR(v, x[i], x[i] / 128.0f) << i;  // bf16 keeps 8 significant bits
    }
}

}  // namespace
}  // namespace nsim
