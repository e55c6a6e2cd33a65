// Every shipped instance elaborates into the machine hardware.md describes.
#include <gtest/gtest.h>

#include <set>

#include "platform/platform_description.h"
#include "test_host.h"

namespace nsim {
namespace {

constexpr uint64_t GiB = uint64_t(1) << 30;

// Independent expectations, copied from ../shared/reference/hardware.md section 1 (not from configs/).
struct Expected {
    const char* instance;
    unsigned devices;
    unsigned cores_per_device;
    uint64_t memory_per_device;
    uint16_t device_id;  // driver.md section 1
};

const Expected kExpected[] = {
    {"inf1.xlarge", 1, 4, 8 * GiB, 0x7064},     {"inf1.2xlarge", 1, 4, 8 * GiB, 0x7064},
    {"inf1.6xlarge", 4, 4, 8 * GiB, 0x7064},    {"inf1.24xlarge", 16, 4, 8 * GiB, 0x7064},
    {"inf2.xlarge", 1, 2, 32 * GiB, 0x7264},    {"inf2.8xlarge", 1, 2, 32 * GiB, 0x7264},
    {"inf2.24xlarge", 6, 2, 32 * GiB, 0x7264},  {"inf2.48xlarge", 12, 2, 32 * GiB, 0x7264},
    {"trn1.2xlarge", 1, 2, 32 * GiB, 0x7164},   {"trn1.32xlarge", 16, 2, 32 * GiB, 0x7164},
    {"trn1n.32xlarge", 16, 2, 32 * GiB, 0x7164}, {"trn2.48xlarge", 16, 8, 96 * GiB, 0x7364},
};

void PrintTo(const Expected& e, std::ostream* os) { *os << e.instance; }

class Elaboration : public ::testing::TestWithParam<Expected> {};

TEST_P(Elaboration, HasTheReferenceCounts) {
    const Expected& e = GetParam();
    auto platform = test::elaborate(e.instance);
    ASSERT_EQ(platform->devices().size(), e.devices);
    for (const auto& device : platform->devices()) {
        EXPECT_EQ(device->cores().size(), e.cores_per_device);
        uint64_t memory = 0;
        for (const auto& channel : device->memory_channels()) memory += channel->size();
        EXPECT_EQ(memory, e.memory_per_device);
        EXPECT_EQ(device->endpoint().config_space().vendor_id(), 0x1d0f);
        EXPECT_EQ(device->endpoint().config_space().device_id(), e.device_id);
        for (const auto& core : device->cores()) {
            EXPECT_GE(core->engines().size(), 3u);
            EXPECT_GT(core->sbuf().size(), 0u);
            EXPECT_GT(core->psum().size(), 0u);
        }
        EXPECT_GT(device->dma_engines().size(), 0u);
    }
}

TEST_P(Elaboration, LinksMatchTheConfiguredTopology) {
    const Expected& e = GetParam();
    const config::HostSpec spec = test::shipped_configs().host(e.instance);
    auto platform = test::elaborate(e.instance);
    size_t ends = 0;
    for (const auto& device : platform->devices()) {
        const std::set<unsigned> built(device->linked_devices().begin(), device->linked_devices().end());
        const auto& configured = spec.instance.connected_to.empty()
                                     ? std::vector<uint32_t>{}
                                     : spec.instance.connected_to.at(device->index());
        EXPECT_EQ(built, std::set<unsigned>(configured.begin(), configured.end())) << "device " << device->index();
        EXPECT_EQ(built.count(device->index()), 0u) << "a device is linked to itself";
        ends += built.size();
    }
    EXPECT_EQ(platform->links().size() * 2, ends);
    if (e.devices == 1) EXPECT_TRUE(platform->links().empty());
}

TEST_P(Elaboration, DescriptionListsEveryDeviceWithItsCores) {
    const Expected& e = GetParam();
    auto platform = test::elaborate(e.instance);
    const nlohmann::json d = sim::describe_platform(*platform);
    ASSERT_EQ(d["devices"].size(), e.devices);
    std::set<std::string> bdfs;
    for (const auto& dev : d["devices"]) {
        EXPECT_EQ(dev["cores"].size(), e.cores_per_device);
        EXPECT_EQ(dev["memory_bytes"].get<uint64_t>(), e.memory_per_device);
        EXPECT_TRUE(dev["connected_to"].is_array());
        bdfs.insert(dev["pci_bdf"].get<std::string>());
    }
    EXPECT_EQ(bdfs.size(), e.devices) << "PCI addresses must be unique";
    const std::string text = sim::format_platform(d);
    EXPECT_NE(text.find(e.instance), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(ShippedInstances, Elaboration, ::testing::ValuesIn(kExpected),
                         [](const auto& info) {
                             std::string name = info.param.instance;
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

TEST(Elaboration, EveryShippedInstanceIsCovered) {
    std::set<std::string> covered;
    for (const Expected& e : kExpected) covered.insert(e.instance);
    for (const auto& name : test::shipped_configs().instance_names()) EXPECT_TRUE(covered.count(name)) << name;
}

TEST(Elaboration, BarsArePlacedAboveHostMemoryWithoutOverlap) {
    auto platform = test::elaborate("trn1.32xlarge");
    struct Range { uint64_t base, size; };
    std::vector<Range> ranges;
    for (const auto& device : platform->devices())
        for (const auto& bar : device->endpoint().config_space().bars()) {
            const auto base = device->endpoint().config_space().bar_base(bar.index);
            ASSERT_TRUE(base.has_value());
            EXPECT_EQ(*base % bar.size, 0u) << "BARs are naturally aligned";
            EXPECT_GE(*base, platform->spec().instance.host_memory_bytes);
            ranges.push_back({*base, bar.size});
        }
    for (size_t i = 0; i < ranges.size(); ++i)
        for (size_t j = i + 1; j < ranges.size(); ++j)
            EXPECT_TRUE(ranges[i].base + ranges[i].size <= ranges[j].base ||
                        ranges[j].base + ranges[j].size <= ranges[i].base);
}

}  // namespace
}  // namespace nsim
