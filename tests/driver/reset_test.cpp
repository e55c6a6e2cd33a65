// The reset handshake: the initial full-device reset at modprobe, per-core resets, a firmware that
// never acknowledges - the driver re-issues, gives up after the configured maximum wait with its
// message, and the device is INVALID until the module is reloaded - and one that acknowledges but is
// still resetting after the driver's last try; the firmware's ready bit during a reset.
#include <gtest/gtest.h>

#include <fmt/format.h>

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

// The firmware's side of the handshake, driven through BAR0 as the driver does it: the ready bit
// reads "resetting" from the doorbell until the reset word is acknowledged and the configured reset
// time has passed after that.
class FirmwareReset : public testing::Test {
protected:
    FirmwareReset() : rig("trn1.2xlarge"), map(rig.spec.chip.registers), fw(rig.spec.chip.firmware) {
        EXPECT_TRUE(rig.driver.modprobe().empty());
    }
    uint32_t read(uint32_t misc_offset) {
        uint32_t value = 0;
        rig.host.platform().host_read(bar0() + map.misc_ram + misc_offset, &value, 4);
        return value;
    }
    void write(uint32_t misc_offset, uint32_t value) {
        rig.host.platform().host_write(bar0() + map.misc_ram + misc_offset, &value, 4);
    }
    bool ready() { return ((read(map.firmware_status) & fw.ready_mask) != 0) == fw.ready_when_set; }
    static sc_core::sc_time seconds(double s) { return sc_core::sc_time(s, sc_core::SC_SEC); }
    static void run_until(const sc_core::sc_time& at) { sc_core::sc_start(at - sc_core::sc_time_stamp()); }
    // Requests a reset of `type` (with `core_map` for a core reset); returns when it was rung.
    sc_core::sc_time ring(uint32_t type, uint32_t core_map = 0) {
        if (type == fw.reset_cores) write(map.reset_core_map, core_map);
        write(map.reset, type);
        write(map.doorbell, 1);
        return sc_core::sc_time_stamp();
    }
    // After an acknowledged reset rung at `rung`: still resetting just before the reset time has
    // passed since the acknowledgement, ready exactly when it has.
    void expect_ready_after(const sc_core::sc_time& rung, double reset_time_s) {
        const sc_core::sc_time done = rung + seconds(fw.reset_ack_time_s) + seconds(reset_time_s);
        run_until(done - seconds(reset_time_s / 100));
        EXPECT_FALSE(ready());
        run_until(done);
        EXPECT_TRUE(ready());
    }
    uint64_t bar0() { return rig.host.platform().bar_address(0, 0); }

    test::DriverRig rig;
    const config::RegisterMapSpec& map;
    const config::FirmwareSpec& fw;
};

TEST_F(FirmwareReset, DeviceResetClearsTheReadyBitForTheConfiguredTime) {
    ASSERT_TRUE(ready());
    const sc_core::sc_time rung = ring(fw.reset_device);
    EXPECT_FALSE(ready());
    run_until(rung + seconds(fw.reset_ack_time_s / 2));
    EXPECT_EQ(read(map.reset), fw.reset_device);  // not acknowledged yet
    EXPECT_FALSE(ready());
    run_until(rung + seconds(fw.reset_ack_time_s));
    EXPECT_EQ(read(map.reset), 0u);  // acknowledged: the word is cleared
    expect_ready_after(rung, fw.device_reset_time_s);
}

TEST_F(FirmwareReset, CoreResetTakesTheCoreResetTime) {
    ASSERT_LT(fw.core_reset_time_s, fw.device_reset_time_s);
    const sc_core::sc_time rung = ring(fw.reset_cores, 0b01);
    run_until(rung + seconds(fw.reset_ack_time_s));
    EXPECT_EQ(read(map.reset), 0u);
    expect_ready_after(rung, fw.core_reset_time_s);
}

TEST(Reset, FirmwareStillResettingAfterTheDriversLastTryLeavesTheDeviceInvalid) {
    config::HostSpec spec = test::shipped_configs().host("inf2.xlarge");
    const config::DriverSpec& drv = spec.chip.driver;
    // The driver polls the ready bit reset_completion_retries times, sleeping backoff x i in between.
    double waited_s = 0;
    for (uint32_t i = 1; i < drv.reset_completion_retries; ++i) waited_s += drv.reset_completion_backoff_s * i;
    spec.chip.firmware.device_reset_time_s = 2 * waited_s + 1;  // a firmware slower than the driver waits for
    test::DriverRig rig(spec);
    const auto failures = rig.driver.modprobe();
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0], fmt::format("nd0: reset request 4294967295 was initiated, but failed to complete (device not ready "
                                       "after {} tries)", drv.reset_completion_retries));
    EXPECT_EQ(rig.driver.device_state(0), driver::DeviceState::Invalid);
    EXPECT_NE(rig.kernel_log().find("nd0: reset request 4294967295 failed"), std::string::npos);
    EXPECT_EQ(rig.state.read_machine()->devices[0].reset_fail_count, 1u);
}

}  // namespace
}  // namespace nsim
