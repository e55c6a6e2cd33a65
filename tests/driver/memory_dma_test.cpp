// Device memory: allocation from per-channel pools with handles and lifespans, the driver's OOM
// message; DMA through the H2T ring host -> device -> host with the data checked against what the
// device memory itself holds.
#include <gtest/gtest.h>

#include <numeric>

#include <fmt/format.h>

#include "driver_test_support.h"

namespace nsim {
namespace {

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
    std::vector<uint8_t> v(n);
    uint32_t x = seed;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;  // LCG: any bytes a stuck or shifted copy would not reproduce
        b = uint8_t(x >> 24);
    }
    return v;
}

TEST(Memory, AllocationsComeFromTheChannelPoolAndOomUsesTheDriversWords) {
    test::DriverRig rig("inf1.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    const uint64_t channel_bytes = rig.spec.chip.memory.channel_bytes - rig.spec.chip.driver.memory_carveout_bytes;
    const uint64_t a = rig.driver.mem_alloc(0, 1 << 20, 1, 2, driver::Lifespan::Process);
    EXPECT_GE(rig.driver.chunk(a).address, rig.spec.chip.memory.channel_bytes);  // channel 1 sits above channel 0
    EXPECT_EQ(rig.state.read_process(getpid())->device_memory_bytes.at({0, 1}), uint64_t(1) << 20);
    const uint64_t big = rig.driver.mem_alloc(0, channel_bytes - (1 << 20), 1, 2, driver::Lifespan::Process);
    try {
        rig.driver.mem_alloc(0, 4096, 1, 2, driver::Lifespan::Process);
        FAIL() << "allocation beyond the channel succeeded";
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(e.error(), ENOMEM);
        EXPECT_EQ(std::string(e.what()),
                  fmt::format("neuron:mc_alloc: device mempool [1:0] total {} occupied {} needed 4096 available 0",
                              channel_bytes, channel_bytes));
    }
    rig.driver.mem_free(big);
    EXPECT_NO_THROW(rig.driver.mem_free(rig.driver.mem_alloc(0, 4096, 1, 2, driver::Lifespan::Process)));
    // Closing the device frees the process's memory.
    rig.driver.close(0);
    EXPECT_THROW(rig.driver.chunk(a), driver::DriverError);
    EXPECT_FALSE(rig.state.read_process(getpid()).has_value());
}

TEST(Memory, DeviceLifespanMemoryOutlivesTheHandleUntilTheModuleIsUnloaded) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    const uint64_t channel_bytes = rig.spec.chip.memory.channel_bytes - rig.spec.chip.driver.memory_carveout_bytes;
    rig.driver.open(0);
    const std::vector<uint8_t> data = pattern(8192, 11);
    const uint64_t kept = rig.driver.mem_alloc(0, data.size(), 1, 1, driver::Lifespan::Device);
    const uint64_t mine = rig.driver.mem_alloc(0, 4096, 1, 1, driver::Lifespan::Process);
    rig.driver.copy_to_device(kept, 0, data.data(), data.size());
    // The last handle goes: the process's memory with it, the device's stays allocated with its data.
    rig.driver.close(0);
    EXPECT_THROW(rig.driver.chunk(mine), driver::DriverError);
    EXPECT_EQ(rig.driver.chunk(kept).size, data.size());
    rig.driver.open(0);
    std::vector<uint8_t> back(data.size());
    rig.driver.copy_from_device(kept, 0, back.data(), back.size());
    EXPECT_EQ(back, data);
    try {
        rig.driver.mem_alloc(0, channel_bytes, 1, 1, driver::Lifespan::Process);
        FAIL() << "the whole channel was allocated although device memory is held on it";
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(std::string(e.what()), fmt::format("neuron:mc_alloc: device mempool [1:0] total {} occupied {} needed {} "
                                                      "available {}", channel_bytes, data.size(), channel_bytes,
                                                      channel_bytes - data.size()));
    }
    // Unloading the module frees it: after the reload the whole channel is free.
    rig.driver.close(0);
    rig.driver.rmmod();
    EXPECT_THROW(rig.driver.chunk(kept), driver::DriverError);
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    EXPECT_NO_THROW(rig.driver.mem_alloc(0, channel_bytes, 1, 1, driver::Lifespan::Process));
}

TEST(Memory, AllocatingWithoutOpeningTheDeviceIsRefused) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    try {
        rig.driver.mem_alloc(0, 4096, 0, 0, driver::Lifespan::Process);
        FAIL();
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(e.error(), EACCES);
    }
}

TEST(Dma, RingCopyHostToDeviceToHostKeepsTheData) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    // More than one bounce buffer and not a multiple of the descriptor size.
    const size_t size = 5 * 1024 * 1024 + 12345;
    const auto data = pattern(size, 7);
    const uint64_t handle = rig.driver.mem_alloc(0, size, 1, 1, driver::Lifespan::Process);
    const uint64_t offset = 100;  // unaligned start inside the chunk
    const double before = rig.driver.dma_seconds();
    rig.driver.copy_to_device(handle, offset, data.data(), size - offset);

    // Independent check: the bytes are in the device's memory channel where the chunk is.
    const driver::MemChunk& chunk = rig.driver.chunk(handle);
    std::vector<uint8_t> stored(size - offset);
    auto& channel = rig.host.platform().devices()[0]->memory_channels()[1];
    channel->storage().read(chunk.address + offset - rig.spec.chip.memory.channel_bytes, stored.data(), stored.size());
    EXPECT_TRUE(std::equal(stored.begin(), stored.end(), data.begin()));

    std::vector<uint8_t> back(size - offset);
    rig.driver.copy_from_device(handle, offset, back.data(), back.size());
    EXPECT_TRUE(std::equal(back.begin(), back.end(), data.begin()));
    // It took at least the PCIe time of both directions, in simulated time.
    EXPECT_GT(rig.driver.dma_seconds() - before, 2.0 * double(size - offset) / rig.spec.chip.pcie.bytes_per_s);
    EXPECT_GT(rig.host.platform().devices()[0]->udma()->pairs_completed(), 2 * (size / 65536));
    EXPECT_EQ(rig.host.platform().devices()[0]->udma()->pairs_failed(), 0u);
}

// A UDMA engine streams each descriptor pair: the read, the engine's own pass and the write overlap,
// so a copy goes at the slowest leg's rate (the engine's, below PCIe's) and not at the three added
// up; the next pair's descriptors are fetched while one moves. On inf1, whose engines (4.4 GiB/s)
// are slower than its PCIe link; trn1's run at their 27 GiB/s peak, above its link.
TEST(Dma, AnEngineStreamsItsReadPassAndWrite) {
    test::DriverRig rig("inf1.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    const size_t size = 1 << 20;  // 16 descriptor pairs, half the bounce buffer
    const auto data = pattern(size, 5);
    const uint64_t handle = rig.driver.mem_alloc(0, size, 0, 0, driver::Lifespan::Process);
    const double before = rig.driver.dma_seconds();
    rig.driver.copy_to_device(handle, 0, data.data(), size);
    const double taken = rig.driver.dma_seconds() - before;
    const double engine = double(size) / rig.spec.chip.core.dma_engine_bytes_per_s;
    const double pcie = double(size) / rig.spec.chip.pcie.bytes_per_s;
    ASSERT_LT(pcie, engine);
    EXPECT_GT(taken, engine);
    // Streamed: the engine's time, plus the descriptor fetches where they outlast a pair (they cross
    // the link behind the data), the marker and a poll. Legs one after the other would take
    // engine + pcie, 36% more.
    EXPECT_LT(taken, engine * 1.25) << "engine " << engine << " s, PCIe " << pcie << " s";
    std::vector<uint8_t> back(size);
    rig.driver.copy_from_device(handle, 0, back.data(), size);
    EXPECT_EQ(back, data);
}

// Two threads' copies, each on its own core's H2T queue, run at once: together they take about as
// long as one of them, no less than the shared PCIe link needs for both, and each lane keeps its own
// bytes (the lanes split the bounce buffer).
TEST(Dma, TwoCoresQueuesCopyAtOnceSharingThePcieLink) {
    test::DriverRig rig("trn1.2xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    const size_t size = 3 * 1024 * 1024 + 100;  // more than a lane's half of the bounce buffer
    const auto a = pattern(size, 11), b = pattern(size, 12);
    const uint64_t ha = rig.driver.mem_alloc(0, size, 0, 0, driver::Lifespan::Process);
    const uint64_t hb = rig.driver.mem_alloc(0, size, 0, 1, driver::Lifespan::Process);
    double before = rig.driver.dma_seconds();
    rig.driver.copy_to_device(ha, 0, a.data(), size);
    const double alone = rig.driver.dma_seconds() - before;

    before = rig.driver.dma_seconds();
    std::vector<uint8_t> back_a(size), back_b(size);
    const auto spans = rig.driver.copy_concurrently(
        {{0, {{ha, 0, const_cast<uint8_t*>(a.data()), size, true}, {ha, 0, back_a.data(), size, false}}},
         {1, {{hb, 0, const_cast<uint8_t*>(b.data()), size, true}, {hb, 0, back_b.data(), size, false}}}});
    const double together = rig.driver.dma_seconds() - before;
    EXPECT_EQ(back_a, a);
    EXPECT_EQ(back_b, b);
    ASSERT_EQ(spans.size(), 2u);
    ASSERT_EQ(spans[0].size(), 2u);
    EXPECT_EQ(spans[0][0].start, spans[1][0].start);  // both lanes start at once
    EXPECT_LE(spans[0][0].end, spans[0][1].start);    // a lane's copies run in order
    // Four copies of `size`, two at a time: under four one after the other (697 us against 4 x 223;
    // the lanes' transfers and descriptor fetches queue on the link)...
    EXPECT_LT(together, 0.85 * 4.0 * alone) << "alone " << alone << " s";
    // ...and no less than the link's time for all of them: each direction carries two, in turn.
    EXPECT_GT(together, 4.0 * double(size) / rig.spec.chip.pcie.bytes_per_s);
}

TEST(Dma, FailedWaitReportsTheDriversTimeoutAndTheNextCopyWorks) {
    test::DriverRig rig("trn1.2xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    const auto data = pattern(4096, 3);
    const uint64_t handle = rig.driver.mem_alloc(0, data.size(), 0, 0, driver::Lifespan::Process);
    rig.driver.faults().set(driver::Fault::FailDmaWait, 1);
    try {
        rig.driver.copy_to_device(handle, 0, data.data(), data.size());
        FAIL() << "copy with fail_dma_wait armed succeeded";
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(e.error(), ETIMEDOUT);
        EXPECT_EQ(std::string(e.what()), "DMA completion timeout on nd00 for eng 15 q0 desc count 2");
    }
    rig.driver.copy_to_device(handle, 0, data.data(), data.size());
    std::vector<uint8_t> back(data.size());
    rig.driver.copy_from_device(handle, 0, back.data(), back.size());
    EXPECT_EQ(back, data);
}

TEST(Memory, FailMcAllocMakesTheNextAllocationFailOnce) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    rig.driver.faults().set(driver::Fault::FailMcAlloc, 1);
    try {
        rig.driver.mem_alloc(0, 4096, 0, 0, driver::Lifespan::Process);
        FAIL();
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(e.error(), ENOMEM);
        EXPECT_NE(std::string(e.what()).find("neuron:mc_alloc: device mempool [0:0]"), std::string::npos);
    }
    EXPECT_NO_THROW(rig.driver.mem_alloc(0, 4096, 0, 0, driver::Lifespan::Process));
}

}  // namespace
}  // namespace nsim
