// rmmod and modprobe: refused while a handle is open, accepted after close; the tree goes away and
// comes back; fail_fwio_read at probe leaves the device INVALID until rmmod + modprobe; a sysfs file
// replaced by something else is rewritten, never read.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "driver_test_support.h"

namespace nsim {
namespace {

TEST(Module, RmmodIsRefusedWhileAHandleIsOpenAndAcceptedAfterClose) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.open(0);
    try {
        rig.driver.rmmod();
        FAIL() << "rmmod with an open handle succeeded";
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(std::string(e.what()), "ERROR: Module neuron is in use");
        EXPECT_EQ(e.error(), EBUSY);
    }
    EXPECT_TRUE(rig.driver.loaded());
    rig.driver.close(0);
    rig.driver.rmmod();
    EXPECT_FALSE(rig.driver.loaded());
    EXPECT_FALSE(std::filesystem::exists(rig.state.sysfs_dir() / "class/neuron_device/neuron0"));
    EXPECT_FALSE(std::filesystem::exists(rig.state.dev_dir() / "neuron0"));
    try {
        rig.driver.rmmod();
        FAIL();
    } catch (const driver::DriverError& e) {
        EXPECT_EQ(std::string(e.what()), "ERROR: Module neuron is not currently loaded");
    }
}

TEST(Module, FirstUseOfAHostBringsItUpAndAttachKeepsItsState) {
    test::DriverRig rig("inf1.xlarge");
    EXPECT_FALSE(rig.state.read_machine().has_value());
    rig.driver.attach();
    EXPECT_TRUE(rig.driver.loaded());
    EXPECT_EQ(rig.driver.device_state(0), driver::DeviceState::Ready);
}

TEST(Module, AttachToAnUnloadedModuleFails) {
    test::DriverRig rig("inf1.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.driver.rmmod();
    EXPECT_THROW(rig.driver.attach(), driver::DriverError);
}

TEST(Module, FailFwioReadAtProbeLeavesTheDeviceInvalidUntilReload) {
    test::DriverRig rig("inf2.xlarge");
    rig.driver.faults().set(driver::Fault::FailFwioRead, -1);
    const auto failures = rig.driver.modprobe();
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0].find("nd0: seq: 15, cmd: 1 timed out"), std::string::npos) << failures[0];
    EXPECT_EQ(rig.driver.device_state(0), driver::DeviceState::Invalid);
    // rmmod removes debugfs and with it the armed attribute; the reload brings the device up.
    rig.driver.rmmod();
    EXPECT_EQ(rig.driver.faults().value(driver::Fault::FailFwioRead), 0);
    EXPECT_TRUE(rig.driver.modprobe().empty());
    EXPECT_EQ(rig.driver.device_state(0), driver::DeviceState::Ready);
}

// The sysfs tree is in the shared host directory: a file there that another process replaced (here by
// a FIFO, which an open for reading waits on forever; a link to /dev/zero or a huge file would be read
// whole) is rewritten without being read.
TEST(Module, ASysfsFileThatIsNotARegularFileIsRewrittenNotRead) {
    test::DriverRig rig("trn1.2xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    const std::filesystem::path file =
        rig.state.sysfs_dir() / "class/neuron_device/neuron0/neuron_core1/stats/other_info/reset_req_count";
    std::filesystem::remove(file);
    ASSERT_EQ(mkfifo(file.c_str(), 0644), 0);
    std::string message;
    EXPECT_TRUE(rig.driver.reset_cores(0, 0b10, &message)) << message;
    EXPECT_TRUE(std::filesystem::is_regular_file(file));
    EXPECT_EQ(test::read_file(file), "2\n");
}

}  // namespace
}  // namespace nsim
