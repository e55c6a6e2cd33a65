// The reset handshake: the initial full-device reset at modprobe, per-core resets, and a firmware
// that never acknowledges - the driver re-issues, gives up after the configured maximum wait with its
// message, and the device is INVALID until the module is reloaded.
#include <gtest/gtest.h>

#include "driver_test_support.h"

namespace nsim {
namespace {

TEST(Reset, InitialResetLeavesEveryDeviceReadyAndCountsIt) {
    test::DriverRig rig("inf1.6xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    const auto machine = rig.state.read_machine();
    for (const auto& device : machine->devices) {
        EXPECT_EQ(device.state, driver::DeviceState::Ready);
        EXPECT_EQ(device.reset_count, 1u);
        EXPECT_EQ(device.cores.at(0).reset_req_count, 1u);
    }
    for (unsigned d = 0; d < 4; ++d) EXPECT_EQ(rig.host.firmware(d).resets_requested(), 1u);
}

TEST(Reset, CoreResetCompletesAndIsCountedPerCore) {
    test::DriverRig rig("trn1.2xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    std::string message;
    EXPECT_TRUE(rig.driver.reset_cores(0, 0b10, &message)) << message;
    const auto machine = rig.state.read_machine();
    EXPECT_EQ(machine->devices[0].cores[0].reset_req_count, 1u);
    EXPECT_EQ(machine->devices[0].cores[1].reset_req_count, 2u);
    EXPECT_EQ(test::read_file(rig.state.sysfs_dir() / "class/neuron_device/neuron0/neuron_core1/stats/other_info/reset_req_count"), "2\n");
}

TEST(Reset, FirmwareThatNeverAcknowledgesTimesOutAndLeavesTheDeviceInvalid) {
    driver::HardwareFaults hang;
    hang.firmware_hang = true;
    test::DriverRig rig("inf2.xlarge", hang);
    const config::DriverSpec& drv = rig.spec.chip.driver;
    const auto failures = rig.driver.modprobe();
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0].find("nd0: reset request 4294967295 was initiated, but failed to complete"), std::string::npos)
        << failures[0];
    EXPECT_EQ(rig.driver.device_state(0), driver::DeviceState::Invalid);
    // Gave up after the maximum wait, having re-issued the request every reissue interval.
    EXPECT_GE(sc_core::sc_time_stamp().to_seconds(), drv.reset_max_wait_s);
    const unsigned issues = unsigned(drv.reset_max_wait_s / drv.reset_reissue_device_s);
    EXPECT_EQ(rig.host.firmware(0).resets_requested(), issues);
    EXPECT_NE(rig.kernel_log().find("nd0: reset request 4294967295 failed"), std::string::npos);
    EXPECT_EQ(test::read_file(rig.state.sysfs_dir() / "class/neuron_device/neuron0/reset"), "2\n");
    // Opening the device now fails as the driver's open does.
    try {
        rig.driver.open(0);
        FAIL() << "open of an INVALID device succeeded";
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(std::string(e.what()), "nd0 is in an invalid state");
        EXPECT_EQ(e.error(), EINVAL);
    }
}

TEST(Reset, ModprobeAfterAFailureMakesTheDeviceReadyAgain) {
    driver::HardwareFaults hang;
    hang.firmware_hang = true;
    test::DriverRig rig("trn2.48xlarge", hang);
    EXPECT_EQ(rig.driver.modprobe().size(), 16u);  // all devices' workers time out together
    EXPECT_LT(sc_core::sc_time_stamp().to_seconds(), 2 * rig.spec.chip.driver.reset_max_wait_s);
    for (unsigned d = 0; d < 16; ++d) rig.host.firmware(d).set_reset_hang(false);
    rig.driver.rmmod();
    EXPECT_FALSE(rig.driver.loaded());
    EXPECT_TRUE(rig.driver.modprobe().empty());
    for (unsigned d = 0; d < 16; ++d) EXPECT_EQ(rig.driver.device_state(d), driver::DeviceState::Ready);
    EXPECT_EQ(rig.state.read_machine()->load_count, 2u);
}

}  // namespace
}  // namespace nsim
