// A DRAM channel that refreshes all its banks at once (configs: memory.refresh_interval_s = tREFI,
// refresh_time_s = tRFC) stops for tRFC every tREFI: over a stream it sustains its share of the
// device's bandwidth times (1 - tRFC / tREFI). HBM, which refreshes bank by bank, keeps all of it.
#include <gtest/gtest.h>

#include "test_host.h"

namespace nsim {
namespace {

TEST(MemoryRefresh, ChannelSustainsItsShareLessTheRefreshTime) {
    config::DeviceMemorySpec memory;
    memory.channels = 2;
    memory.bytes_per_s = 50e9;
    EXPECT_DOUBLE_EQ(memory.channel_bytes_per_s(), 25e9);  // no refresh given: the whole share
    memory.refresh_interval_s = 8e-6;
    memory.refresh_time_s = 400e-9;
    EXPECT_DOUBLE_EQ(memory.channel_bytes_per_s(), 25e9 * 0.95);
}

TEST(MemoryRefresh, DeviceMemoryChannelsRunAtTheSustainedRate) {
    auto ddr = test::elaborate("inf1.2xlarge");
    const config::DeviceMemorySpec& memory = ddr->spec().chip.memory;
    ASSERT_GT(memory.refresh_interval_s, 0.0) << "DDR4 refreshes all banks at once";
    for (const auto& channel : ddr->devices()[0]->memory_channels())
        EXPECT_DOUBLE_EQ(channel->timing().bytes_per_s(), memory.channel_bytes_per_s());
    EXPECT_LT(memory.channel_bytes_per_s(), memory.bytes_per_s / memory.channels);
}

TEST(MemoryRefresh, HbmChannelsKeepTheirWholeShare) {
    auto hbm = test::elaborate("trn1.2xlarge");
    const config::DeviceMemorySpec& trn1 = hbm->spec().chip.memory;
    EXPECT_EQ(trn1.refresh_interval_s, 0.0) << "HBM refreshes bank by bank";
    EXPECT_DOUBLE_EQ(hbm->devices()[0]->memory_channels()[0]->timing().bytes_per_s(), trn1.bytes_per_s / trn1.channels);
}

}  // namespace
}  // namespace nsim
