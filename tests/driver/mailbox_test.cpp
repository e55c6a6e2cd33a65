// The FWIO mailbox: requests in host memory, doorbell, response with the request's seq; the firmware
// checks the CRC-32C; READ returns register values (serial number, ECC counters).
#include <gtest/gtest.h>

#include "driver_test_support.h"
#include "firmware/fwio_protocol.h"
#include "fwio_client.h"

namespace nsim {
namespace {

TEST(Mailbox, Crc32cIsTheCastagnoliCrc) {
    const std::string check = "123456789";
    firmware::fwio::Crc32c crc;
    crc.process_bytes(check.data(), check.size());
    EXPECT_EQ(crc.checksum(), 0xE3069283u);  // the CRC-32C check value
}

TEST(Mailbox, ReadRoundTripReturnsTheSerialNumberTheDeviceHolds) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    const config::RegisterMapSpec& map = rig.spec.chip.registers;
    sim::RegisterFile& registers = rig.host.platform().devices()[0]->registers();
    const uint64_t expected = uint64_t(registers.peek(map.misc_ram + map.serial_number_hi)) << 32 |
                              registers.peek(map.misc_ram + map.serial_number_lo);
    const auto machine = rig.state.read_machine();
    ASSERT_TRUE(machine);
    EXPECT_EQ(machine->devices[0].serial_number, expected);
    EXPECT_NE(expected, 0u);
    EXPECT_GE(rig.host.firmware(0).mailbox_requests(), 1u);
}

TEST(Mailbox, HealthCountersComeBackThroughTheMailboxIntoSysfs) {
    test::DriverRig rig("trn1.2xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    rig.host.firmware(0).inject_memory_ecc(1, 3, 2);
    const auto result = rig.driver.refresh_health(0);
    ASSERT_TRUE(result.ok) << result.message;
    const auto machine = rig.state.read_machine();
    EXPECT_EQ(machine->devices[0].memory_ecc.at(1), (3u << 16) | 2u);
    const auto hw = rig.state.sysfs_dir() / "class/neuron_device/neuron0/stats/hardware";
    EXPECT_EQ(test::read_file(hw / "mem_ecc_corrected"), "3\n");
    EXPECT_EQ(test::read_file(hw / "mem_ecc_uncorrected"), "2\n");
}

// A request written by hand: the firmware answers a bad CRC with an error, a good one with data.
TEST(Mailbox, FirmwareRejectsARequestWithABadCrc) {
    test::DriverRig rig("inf1.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    const config::ChipSpec& chip = rig.spec.chip;
    const config::RegisterMapSpec& map = chip.registers;
    driver::HostMemory memory(rig.host.platform());
    const driver::MappedBar bar0(rig.host.platform(), 0, rig.host.platform().bar_address(0, 0), 8 << 20);
    const uint64_t request = 0x100000, response = 0x200000;  // host physical scratch pages
    driver::KernelLog log(&rig.state);
    driver::FwioClient client(bar0, memory, chip, 0, request, response, log);
    client.setup();

    auto send = [&](uint8_t seq, bool corrupt) {
        const std::vector<uint8_t> data = firmware::fwio::pack_words({uint32_t(map.misc_ram + map.device_id)});
        firmware::fwio::RequestHeader header{seq, uint8_t(chip.firmware.command_read), uint16_t(data.size()), 0};
        header.crc32 = firmware::fwio::request_crc(header, data.data(), data.size()) ^ (corrupt ? 1u : 0u);
        memory.write(request, &header, sizeof header);
        memory.write(request + sizeof header, data.data(), data.size());
        bar0.write32(map.misc_ram + map.doorbell, 1);
        sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
        firmware::fwio::ResponseHeader answer;
        memory.read(response, &answer, sizeof answer);
        return answer;
    };
    const auto bad = send(200, true);
    EXPECT_EQ(bad.seq, 200);
    EXPECT_EQ(bad.error, chip.firmware.error_fail);
    const auto good = send(201, false);
    EXPECT_EQ(good.seq, 201);
    EXPECT_EQ(good.error, chip.firmware.error_success);
    EXPECT_EQ(good.size, 4);
    EXPECT_EQ(memory.read32(response + sizeof good), 0u);  // the device id of device 0
}

TEST(Mailbox, AnUnansweredRequestTimesOutAfterTheConfiguredRetries) {
    test::DriverRig rig("inf2.xlarge");
    ASSERT_TRUE(rig.driver.modprobe().empty());
    const config::DriverSpec& drv = rig.spec.chip.driver;
    const double before = sc_core::sc_time_stamp().to_seconds();
    rig.driver.faults().set(driver::Fault::FailFwioRead, 1);
    const auto result = rig.driver.refresh_health(0);
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.message.find("cmd: 1 timed out"), std::string::npos) << result.message;
    EXPECT_NEAR(sc_core::sc_time_stamp().to_seconds() - before, drv.fwio_retries * drv.fwio_timeout_s, 0.1);
    EXPECT_TRUE(rig.driver.refresh_health(0).ok);  // the switch fired once
}

}  // namespace
}  // namespace nsim
