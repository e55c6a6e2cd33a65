// modprobe on every shipped instance finds every device by its PCI ids, maps its BARs where
// enumeration put them, waits for firmware, resets every device and publishes sysfs and /dev.
#include <gtest/gtest.h>

#include "driver_test_support.h"
#include "platform/pci_config_space.h"

namespace nsim {
namespace {

class ProbeEveryInstance : public ::testing::TestWithParam<std::string> {};

TEST_P(ProbeEveryInstance, FindsEveryDeviceWithItsIdsAndBarsAndBringsItUp) {
    test::DriverRig rig(GetParam());
    const config::ChipSpec& chip = rig.spec.chip;
    const auto failures = rig.driver.modprobe();
    EXPECT_TRUE(failures.empty()) << failures.front();
    ASSERT_EQ(rig.driver.device_count(), rig.spec.instance.devices);
    for (unsigned d = 0; d < rig.driver.device_count(); ++d) {
        const driver::ProbedFunction& pci = rig.driver.pci(d);
        EXPECT_EQ(pci.vendor_id, chip.pci.vendor_id);
        EXPECT_EQ(pci.device_id, chip.pci.device_id);
        EXPECT_EQ(pci.address.to_string(), sim::PciAddress::parse(rig.spec.instance.pci_bdfs[d]).to_string());
        ASSERT_EQ(pci.bars.size(), chip.pci.bars.size());
        for (const config::BarSpec& bar : chip.pci.bars) {
            const driver::ProbedBar* probed = pci.bar(bar.index);
            ASSERT_NE(probed, nullptr) << "BAR" << bar.index;
            EXPECT_EQ(probed->size, bar.size_bytes);
            EXPECT_EQ(probed->address, rig.host.platform().bar_address(d, bar.index));
        }
        EXPECT_EQ(rig.driver.device_state(d), driver::DeviceState::Ready) << rig.driver.device_reason(d);
        const auto sys = rig.state.sysfs_dir() / "class" / "neuron_device" / ("neuron" + std::to_string(d));
        EXPECT_EQ(test::read_file(sys / "reset"), "1\n");
        EXPECT_EQ(test::read_file(sys / "core_count"), std::to_string(chip.cores_per_device) + "\n");
        EXPECT_EQ(test::read_file(sys / "info/architecture/device_name"), chip.product + "\n");
        EXPECT_TRUE(std::filesystem::exists(rig.state.dev_dir() / ("neuron" + std::to_string(d))));
    }
    const std::string log = rig.kernel_log();
    EXPECT_NE(log.find("Neuron Driver Started with Version:" + chip.driver.version), std::string::npos);
    EXPECT_NE(log.find("nd0: reset request 4294967295 completed"), std::string::npos) << log;
    // Firmware boot took simulated time the driver spent polling, not host time.
    EXPECT_GE(sc_core::sc_time_stamp().to_seconds(), chip.firmware.boot_time_s);
}

std::vector<std::string> all_instances() { return test::shipped_configs().instance_names(); }

INSTANTIATE_TEST_SUITE_P(Shipped, ProbeEveryInstance, ::testing::ValuesIn(all_instances()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

TEST(Probe, DeviceIdReadsNotReadyUntilFirmwareHasBooted) {
    test::DriverRig rig("inf2.xlarge");
    const config::ChipSpec& chip = rig.spec.chip;
    const uint64_t bar0 = rig.host.platform().bar_address(0, 0);
    uint32_t id = 0;
    rig.host.platform().host_read(bar0 + chip.registers.misc_ram + chip.registers.device_id, &id, 4);
    EXPECT_EQ(id, chip.firmware.device_id_not_ready);
    sc_core::sc_start(sc_core::sc_time(chip.firmware.boot_time_s, sc_core::SC_SEC));
    rig.host.platform().host_read(bar0 + chip.registers.misc_ram + chip.registers.device_id, &id, 4);
    EXPECT_EQ(id, 0u);  // routing id of the first device
}

}  // namespace
}  // namespace nsim
