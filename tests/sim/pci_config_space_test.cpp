// The BAR sizing protocol behaves as the PCI specification says, so a driver can probe sizes.
#include <gtest/gtest.h>

#include "platform/pci_config_space.h"
#include "test_host.h"

namespace nsim::sim {
namespace {

TEST(PciConfigSpace, SizingProtocolReturnsEachBarSize) {
    const config::ChipSpec& chip = test::shipped_configs().chip("trainium1");
    PciConfigSpace cs(chip.pci);
    for (const config::BarSpec& bar : chip.pci.bars) {
        const uint32_t low = pci::kBar0 + 4 * bar.index;
        cs.write32(low, 0xffffffff);
        cs.write32(low + 4, 0xffffffff);
        const uint64_t mask = (uint64_t(cs.read32(low + 4)) << 32) | (cs.read32(low) & ~0xfu);
        EXPECT_EQ(~mask + 1, bar.size_bytes) << "BAR" << bar.index;
        EXPECT_EQ(cs.read32(low) & 0x6, pci::kBarMemory64) << "64-bit memory BAR";
    }
}

TEST(PciConfigSpace, DecodingIsOffUntilEnabled) {
    const config::ChipSpec& chip = test::shipped_configs().chip("inferentia");
    PciConfigSpace cs(chip.pci);
    EXPECT_FALSE(cs.memory_enabled());
    cs.write32(pci::kCommand, pci::kCommandMemorySpace);
    EXPECT_TRUE(cs.memory_enabled());
    EXPECT_FALSE(cs.bus_master_enabled());
    EXPECT_EQ(cs.read32(3), 0xffffffffu) << "unaligned access";
}

}  // namespace
}  // namespace nsim::sim
