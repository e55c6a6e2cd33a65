// The shipped configs/ against the numbers in ../shared/reference/hardware.md (section 1 for
// instances, 2 for chips and cores), driver.md (PCI ids) and tools.md (neuron-ls captures).
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "config/config_set.h"
#include "config/id_list.h"

namespace nsim::config {
namespace {

constexpr uint64_t GiB = uint64_t(1) << 30;

const ConfigSet& shipped() {
    static const ConfigSet set = ConfigSet::load(NSIM_CONFIG_DIR);
    return set;
}

struct ExpectedInstance {
    const char* name;
    const char* chip;
    uint32_t devices;
    uint32_t cores_per_device;
    uint64_t memory_per_device;
    uint32_t vcpus;
    uint64_t host_memory;
};

// hardware.md section 1, row by row.
const ExpectedInstance kInstances[] = {
    {"inf1.xlarge", "inferentia", 1, 4, 8 * GiB, 4, 8 * GiB},
    {"inf1.2xlarge", "inferentia", 1, 4, 8 * GiB, 8, 16 * GiB},
    {"inf1.6xlarge", "inferentia", 4, 4, 8 * GiB, 24, 48 * GiB},
    {"inf1.24xlarge", "inferentia", 16, 4, 8 * GiB, 96, 192 * GiB},
    {"inf2.xlarge", "inferentia2", 1, 2, 32 * GiB, 4, 16 * GiB},
    {"inf2.8xlarge", "inferentia2", 1, 2, 32 * GiB, 32, 128 * GiB},
    {"inf2.24xlarge", "inferentia2", 6, 2, 32 * GiB, 96, 384 * GiB},
    {"inf2.48xlarge", "inferentia2", 12, 2, 32 * GiB, 192, 768 * GiB},
    {"trn1.2xlarge", "trainium1", 1, 2, 32 * GiB, 8, 32 * GiB},
    {"trn1.32xlarge", "trainium1", 16, 2, 32 * GiB, 128, 512 * GiB},
    {"trn1n.32xlarge", "trainium1", 16, 2, 32 * GiB, 128, 512 * GiB},
    {"trn2.48xlarge", "trainium2", 16, 8, 96 * GiB, 192, 2048 * GiB},
};

class ConfigShippedInstance : public ::testing::TestWithParam<ExpectedInstance> {};

TEST_P(ConfigShippedInstance, MatchesHardwareReference) {
    const ExpectedInstance& expected = GetParam();
    const HostSpec host = shipped().host(expected.name);
    EXPECT_EQ(host.instance.name, expected.name);
    EXPECT_EQ(host.chip.name, expected.chip);
    EXPECT_EQ(host.instance.devices, expected.devices);
    EXPECT_EQ(host.chip.cores_per_device, expected.cores_per_device);
    EXPECT_EQ(host.chip.memory.total_bytes(), expected.memory_per_device);
    EXPECT_EQ(host.instance.vcpus, expected.vcpus);
    EXPECT_EQ(host.instance.host_memory_bytes, expected.host_memory);
}

TEST_P(ConfigShippedInstance, HasOneDistinctPciAddressPerDevice) {
    const HostSpec host = shipped().host(GetParam().name);
    ASSERT_EQ(host.instance.pci_bdfs.size(), host.instance.devices);
    const std::set<std::string> distinct(host.instance.pci_bdfs.begin(), host.instance.pci_bdfs.end());
    EXPECT_EQ(distinct.size(), host.instance.devices);
}

TEST_P(ConfigShippedInstance, EveryDeviceHasANumaNodeAndMultiNodeHostsCoverEveryVcpu) {
    const InstanceSpec instance = shipped().host(GetParam().name).instance;
    ASSERT_EQ(instance.device_numa_nodes.size(), instance.devices);
    if (instance.numa_node_cpus.empty()) return;  // one unnumbered node: every vCPU is in it
    size_t cpus = 0;
    for (const auto& node : instance.numa_node_cpus) cpus += node.size();
    EXPECT_EQ(cpus, instance.vcpus);  // the loader already rejects shared and missing CPUs
}

TEST_P(ConfigShippedInstance, LinksAreSymmetricInRangeAndWithinPorts) {
    const HostSpec host = shipped().host(GetParam().name);
    const auto& links = host.instance.connected_to;
    ASSERT_EQ(links.size(), host.instance.devices);
    for (uint32_t device = 0; device < links.size(); ++device) {
        EXPECT_LE(links[device].size(), host.chip.link.ports) << "device " << device;
        for (uint32_t peer : links[device]) {
            ASSERT_LT(peer, links.size());
            EXPECT_NE(peer, device);
            const auto& back = links[peer];
            EXPECT_NE(std::find(back.begin(), back.end(), device), back.end())
                << device << " -> " << peer;
        }
    }
    if (host.instance.devices == 1) {
        EXPECT_TRUE(links[0].empty());
    }
}

INSTANTIATE_TEST_SUITE_P(AllShipped, ConfigShippedInstance, ::testing::ValuesIn(kInstances),
                         [](const auto& info) {
                             std::string name = info.param.name;
                             std::replace(name.begin(), name.end(), '.', '_');
                             return name;
                         });

TEST(ConfigShipped, ListsExactlyTheTwelveInstancesInSizeOrder) {
    const std::vector<std::string> expected = {
        "inf1.xlarge",  "inf1.2xlarge",  "inf1.6xlarge",  "inf1.24xlarge",
        "inf2.xlarge",  "inf2.8xlarge",  "inf2.24xlarge", "inf2.48xlarge",
        "trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge"};
    EXPECT_EQ(shipped().instance_names(), expected);
    const std::vector<std::string> chips = {"inferentia", "inferentia2", "trainium1", "trainium2"};
    EXPECT_EQ(shipped().chip_names(), chips);
}

TEST(ConfigShipped, PciIdsAreTheDriversPerGeneration) {
    // driver.md section 1.
    const std::pair<const char*, uint32_t> ids[] = {
        {"inferentia", 0x7064}, {"trainium1", 0x7164}, {"inferentia2", 0x7264}, {"trainium2", 0x7364}};
    for (const auto& [chip, device_id] : ids) {
        EXPECT_EQ(shipped().chip(chip).pci.vendor_id, 0x1d0fu) << chip;
        EXPECT_EQ(shipped().chip(chip).pci.device_id, device_id) << chip;
    }
}

TEST(ConfigShipped, CoreGenerationsAndOnChipMemories) {
    // hardware.md 2.2: SBUF 24 MiB / 28 MiB, PSUM 2 MiB in 8 banks; clocks from NKI2/NKI3.
    const ChipSpec& trn1 = shipped().chip("trainium1");
    EXPECT_EQ(trn1.core.version, "v2");
    EXPECT_EQ(trn1.core.sbuf.total_bytes(), uint64_t(24) << 20);
    EXPECT_EQ(trn1.core.psum.total_bytes(), uint64_t(2) << 20);
    EXPECT_EQ(trn1.core.psum.banks, 8u);
    EXPECT_EQ(trn1.generation_file, std::string(NSIM_CONFIG_DIR) + "/chips/nc-v2.yaml");
    const ChipSpec& trn2 = shipped().chip("trainium2");
    EXPECT_EQ(trn2.core.version, "v3");
    EXPECT_EQ(trn2.core.sbuf.total_bytes(), uint64_t(28) << 20);
    EXPECT_EQ(trn2.logical_neuroncore_config, 2u);
    EXPECT_EQ(shipped().chip("inferentia").core.version, "v1");
    EXPECT_EQ(shipped().chip("inferentia2").core.name, "NeuronCore-v2");
    for (const auto& engine : trn1.core.engines) {
        if (engine.name == "tensor") {
            EXPECT_DOUBLE_EQ(engine.clock_hz, 2.8e9);
        }
    }
    EXPECT_DOUBLE_EQ(trn1.core.tensor.peak_flops.at("bf16"), 92e12);
    EXPECT_DOUBLE_EQ(trn1.memory.bytes_per_s, 820.0 * GiB);
}

TEST(ConfigShipped, RealNeuronLsTopologiesAreReproduced) {
    // tools.md 1.3 (trn1.32xlarge) and 1.1 (inf1.6xlarge): CONNECTED DEVICES, in neuron-ls order.
    const std::vector<std::vector<uint32_t>> trn1_torus = {
        {12, 3, 4, 1}, {13, 0, 5, 2},  {14, 1, 6, 3},   {15, 2, 7, 0},
        {0, 7, 8, 5},  {1, 4, 9, 6},   {2, 5, 10, 7},   {3, 6, 11, 4},
        {4, 11, 12, 9}, {5, 8, 13, 10}, {6, 9, 14, 11}, {7, 10, 15, 8},
        {8, 15, 0, 13}, {9, 12, 1, 14}, {10, 13, 2, 15}, {11, 14, 3, 12}};
    EXPECT_EQ(shipped().host("trn1.32xlarge").instance.connected_to, trn1_torus);
    // trn1n declares only `torus: [4, 4]`; the expansion must give the same real lists.
    EXPECT_EQ(shipped().host("trn1n.32xlarge").instance.connected_to, trn1_torus);
    EXPECT_EQ(shipped().host("trn1n.32xlarge").instance.topology, "torus");
    EXPECT_EQ(shipped().host("trn1n.32xlarge").instance.topology_shape, (std::vector<uint32_t>{4, 4}));
    const std::vector<std::vector<uint32_t>> inf1_chain = {{1}, {2, 0}, {3, 1}, {2}};
    EXPECT_EQ(shipped().host("inf1.6xlarge").instance.connected_to, inf1_chain);
    EXPECT_EQ(shipped().host("trn1.32xlarge").instance.pci_bdfs.at(2), "a0:1c.0");
    EXPECT_EQ(shipped().host("trn1.2xlarge").instance.topology, "none");
}

TEST(ConfigShipped, RealNeuronLsNumaNodesAreReproduced) {
    // tools.md 1.7: inf2.24xlarge's NUMA NODE and CPU AFFINITY per device (real capture).
    const InstanceSpec inf2 = shipped().host("inf2.24xlarge").instance;
    EXPECT_EQ(inf2.device_numa_nodes, (std::vector<int32_t>{1, 1, 0, 0, 0, 1}));
    ASSERT_EQ(inf2.numa_node_cpus.size(), 2u);
    EXPECT_EQ(format_id_list(inf2.numa_node_cpus[0]), "0-23,48-71");
    EXPECT_EQ(format_id_list(inf2.numa_node_cpus[1]), "24-47,72-95");
    // trn1.2xlarge (real capture): one unnumbered node.
    const InstanceSpec trn1 = shipped().host("trn1.2xlarge").instance;
    EXPECT_TRUE(trn1.numa_node_cpus.empty());
    EXPECT_EQ(trn1.device_numa_nodes, std::vector<int32_t>{-1});
    // tools.md 1.8 (doc example of the same chassis): device 0 on node 1, device 4 on node 0.
    const InstanceSpec trn2 = shipped().host("trn2.48xlarge").instance;
    EXPECT_EQ(trn2.device_numa_nodes.at(0), 1);
    EXPECT_EQ(trn2.device_numa_nodes.at(4), 0);
    EXPECT_EQ(format_id_list(trn2.numa_node_cpus.at(1)), "48-95,144-191");
}

TEST(ConfigShipped, Trn1nLinksAreTwiceTrn1s) {
    // hardware.md section 1 note a: 768 vs 384 GiB/s per device, same chip.
    const double trn1 = shipped().host("trn1.32xlarge").chip.link.bytes_per_s;
    const double trn1n = shipped().host("trn1n.32xlarge").chip.link.bytes_per_s;
    EXPECT_DOUBLE_EQ(trn1n, 2 * trn1);
    EXPECT_DOUBLE_EQ(shipped().chip("trainium1").link.bytes_per_s, trn1);
}

TEST(ConfigShipped, UnknownInstanceListsTheValidOnes) {
    try {
        shipped().host("inf3.huge");
        FAIL() << "no error";
    } catch (const ConfigError& error) {
        EXPECT_STREQ(error.what(),
                     "unknown instance 'inf3.huge'; valid instances: inf1.xlarge, inf1.2xlarge, "
                     "inf1.6xlarge, inf1.24xlarge, inf2.xlarge, inf2.8xlarge, inf2.24xlarge, "
                     "inf2.48xlarge, trn1.2xlarge, trn1.32xlarge, trn1n.32xlarge, trn2.48xlarge");
    }
}

TEST(ConfigShipped, UnknownChipListsTheValidOnes) {
    try {
        shipped().chip("trainium9");
        FAIL() << "no error";
    } catch (const ConfigError& error) {
        EXPECT_STREQ(error.what(), "unknown chip 'trainium9'; valid chips: inferentia, inferentia2, "
                                   "trainium1, trainium2");
    }
}

TEST(ConfigShipped, DefaultDirHonoursTheEnvironment) {
    ::setenv("NEURON_SIM_CONFIG_DIR", "/elsewhere/configs", 1);
    EXPECT_EQ(ConfigSet::default_dir(), std::filesystem::path("/elsewhere/configs"));
    ::unsetenv("NEURON_SIM_CONFIG_DIR");
    EXPECT_EQ(ConfigSet::default_dir(), std::filesystem::path(NSIM_CONFIG_DIR));
}

}  // namespace
}  // namespace nsim::config
