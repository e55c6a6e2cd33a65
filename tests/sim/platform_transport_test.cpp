// Transactions through the elaborated hierarchy reach the right place, carry the right data and
// take the time the configured PCIe, memory and link parameters say.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "platform/pci_config_space.h"
#include "test_host.h"

namespace nsim {
namespace {

using sc_core::sc_time;
using sc_core::SC_SEC;

uint32_t device_memory_bar(const config::ChipSpec& chip) {
    for (const auto& bar : chip.pci.bars)
        if (bar.role == "device-memory") return bar.index;
    ADD_FAILURE() << "no device-memory BAR";
    return 0;
}

uint32_t register_bar(const config::ChipSpec& chip) {
    for (const auto& bar : chip.pci.bars)
        if (bar.role == "registers") return bar.index;
    ADD_FAILURE() << "no register BAR";
    return 0;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint8_t(seed + i * 7);
    return v;
}

double seconds(sc_time t) { return t.to_seconds(); }

TEST(HostTransport, WriteThenReadDeviceMemoryThroughPcie) {
    auto platform = test::elaborate("inf1.2xlarge");
    const config::ChipSpec& chip = platform->spec().chip;
    const uint64_t bar4 = platform->bar_address(0, device_memory_bar(chip));
    const auto data = pattern(4096, 3);
    const uint64_t offset = 0x12340;

    const sc_time write_time = platform->host_write(bar4 + offset, data.data(), uint32_t(data.size()));
    std::vector<uint8_t> back(data.size());
    const sc_time read_time = platform->host_read(bar4 + offset, back.data(), uint32_t(back.size()));
    EXPECT_EQ(back, data);

    // The bytes sit in device memory channel 0 at that offset.
    std::vector<uint8_t> stored(data.size());
    platform->devices()[0]->memory_channels()[0]->storage().read(offset, stored.data(), stored.size());
    EXPECT_EQ(stored, data);

    // Latency from the parameters: the link crossing(s) plus the memory channel's access.
    const double n = double(data.size());
    const double pcie = n / chip.pcie.bytes_per_s;
    const double memory = n / chip.memory.channel_bytes_per_s();
    const double expected_write = chip.pcie.latency_s + pcie + chip.memory.latency_s + memory;
    const double expected_read = 2 * chip.pcie.latency_s + pcie + chip.memory.latency_s + memory;
    EXPECT_NEAR(seconds(write_time), expected_write, 1e-12);
    EXPECT_GT(seconds(write_time), 0.0);
    // Reads queue behind the write on the memory channel only if they overlap in time; they were
    // issued at the same simulated instant, so the channel is still busy with the write's bytes.
    EXPECT_GE(seconds(read_time), expected_read - 1e-12);
}

TEST(HostTransport, SecondChannelIsReachedPastTheFirst) {
    auto platform = test::elaborate("trn1.2xlarge");
    const config::ChipSpec& chip = platform->spec().chip;
    ASSERT_GE(chip.memory.channels, 2u);
    const uint64_t bar4 = platform->bar_address(0, device_memory_bar(chip));
    const auto data = pattern(256, 9);
    platform->host_write(bar4 + chip.memory.channel_bytes + 64, data.data(), uint32_t(data.size()));
    std::vector<uint8_t> stored(data.size());
    platform->devices()[0]->memory_channels()[1]->storage().read(64, stored.data(), stored.size());
    EXPECT_EQ(stored, data);
}

TEST(HostTransport, BackToBackWritesContendForTheLink) {
    auto platform = test::elaborate("inf2.xlarge");
    const config::ChipSpec& chip = platform->spec().chip;
    const uint64_t bar4 = platform->bar_address(0, device_memory_bar(chip));
    const auto data = pattern(1 << 20, 1);
    const sc_time first = platform->host_write(bar4, data.data(), uint32_t(data.size()));
    const sc_time second = platform->host_write(bar4 + data.size(), data.data(), uint32_t(data.size()));
    const double link_time = double(data.size()) / chip.pcie.bytes_per_s;
    EXPECT_NEAR(seconds(second) - seconds(first), link_time, link_time * 1e-6);
}

TEST(HostTransport, RegisterBarReadsBackWhatWasWritten) {
    auto platform = test::elaborate("inf2.xlarge");
    const uint64_t bar0 = platform->bar_address(0, register_bar(platform->spec().chip));
    const uint32_t value = 0xa5a5f00d;
    platform->host_write(bar0 + 0x40, &value, 4);
    uint32_t back = 0;
    platform->host_read(bar0 + 0x40, &back, 4);
    EXPECT_EQ(back, value);
    EXPECT_EQ(platform->devices()[0]->registers().peek(0x40), value);
}

TEST(HostTransport, UnclaimedAddressIsABusError) {
    auto platform = test::elaborate("inf1.xlarge");
    uint32_t value = 0;
    // Just past the last BAR of the only device: nothing decodes it.
    uint64_t end = 0;
    for (const auto& bar : platform->devices()[0]->endpoint().config_space().bars())
        end = std::max(end, platform->bar_address(0, bar.index) + bar.size);
    EXPECT_THROW(platform->host_read(end, &value, 4), sim::BusError);
}

TEST(HostTransport, ConfigSpaceIdentifiesEachFunctionAndAbsentOnesReadAllOnes) {
    auto platform = test::elaborate("inf2.48xlarge");
    for (const auto& device : platform->devices()) {
        const uint32_t id = platform->root_complex().config_read32(device->endpoint().address(), sim::pci::kVendorId);
        EXPECT_EQ(id & 0xffff, platform->spec().chip.pci.vendor_id);
        EXPECT_EQ(id >> 16, platform->spec().chip.pci.device_id);
    }
    EXPECT_EQ(platform->root_complex().config_read32(sim::PciAddress::parse("ff:1f.7"), 0), 0xffffffffu);
}

// A device DMA engine writing through link port 0 lands in the linked peer's memory, after the
// link's latency and transfer time.
TEST(DeviceTransport, LinkCarriesWritesToThePeerDevice) {
    auto platform = test::elaborate("trn1.32xlarge");
    const auto& device0 = *platform->devices()[0];
    ASSERT_FALSE(device0.linked_devices().empty());
    const unsigned peer = device0.linked_devices()[0];
    const config::ChipSpec& chip = platform->spec().chip;

    auto data = pattern(8192, 5);
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(device0.address_map().link(0) + 0x1000);
    p.set_data_ptr(data.data());
    p.set_data_length(uint32_t(data.size()));
    p.set_streaming_width(uint32_t(data.size()));
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    device0.dma_engines()[0]->socket->b_transport(p, delay);
    ASSERT_TRUE(p.is_response_ok());

    std::vector<uint8_t> stored(data.size());
    platform->devices()[peer]->memory_channels()[0]->storage().read(0x1000, stored.data(), stored.size());
    EXPECT_EQ(stored, data);
    const double n = double(data.size());
    const double expected = chip.link.latency_s + n / chip.link.bytes_per_s + chip.memory.latency_s +
                            n / chip.memory.channel_bytes_per_s();
    EXPECT_NEAR(seconds(delay), expected, 1e-12);
}

TEST(DeviceTransport, DmaReachesHostMemoryThroughTheEndpoint) {
    auto platform = test::elaborate("inf2.xlarge");
    const auto& device = *platform->devices()[0];
    auto data = pattern(512, 11);
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(device.host_window_base() + 0x8000);
    p.set_data_ptr(data.data());
    p.set_data_length(uint32_t(data.size()));
    p.set_streaming_width(uint32_t(data.size()));
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    device.dma_engines()[0]->socket->b_transport(p, delay);
    ASSERT_TRUE(p.is_response_ok());
    std::vector<uint8_t> stored(data.size());
    platform->host_memory().storage().read(0x8000, stored.data(), stored.size());
    EXPECT_EQ(stored, data);
    const config::ChipSpec& chip = platform->spec().chip;
    EXPECT_NEAR(seconds(delay), chip.pcie.latency_s + double(data.size()) / chip.pcie.bytes_per_s, 1e-12);
}

}  // namespace
}  // namespace nsim
