// A user's own file (`--config FILE`) adds chips and instances next to the shipped ones.
#include <gtest/gtest.h>

#include "config_test_files.h"
#include "user_config_text.h"

namespace nsim::config::testing {
namespace {

TEST(ConfigUserFile, AddsAChipAndAnInstanceUsingIt) {
    ConfigTestFiles files;
    const ConfigSet set = files.load_with(kUserConfig);
    const HostSpec host = set.host("test.4xlarge");
    EXPECT_EQ(host.chip.name, "testchip");
    EXPECT_EQ(host.chip.product, "TestChip");
    EXPECT_EQ(host.chip.generation_file, files.user_file().string());
    EXPECT_EQ(host.chip.core.name, "TestCore");
    EXPECT_EQ(host.instance.devices, 4u);
    EXPECT_EQ(host.instance.topology, "custom");
    EXPECT_EQ(host.chip.memory.total_bytes(), uint64_t(8) << 30);
    EXPECT_DOUBLE_EQ(host.chip.core.engines.at(1).clock_hz, 800e6);
    EXPECT_EQ(host.chip.core.engines.at(0).min_instruction_cycles, 64u);
    EXPECT_EQ(host.chip.core.engines.at(1).min_instruction_cycles, 0u);  // optional, default 0
    EXPECT_DOUBLE_EQ(host.chip.core.tensor.peak_flops.at("int8"), 64e12);
    EXPECT_DOUBLE_EQ(host.chip.core.dma_transfer_overhead_s, 1e-6);
    EXPECT_EQ(host.chip.logical_neuroncore_config, 1u);
    // The long form with a zero domain and upper-case hex is stored as neuron-ls's short form.
    EXPECT_EQ(host.instance.pci_bdfs.at(3), "00:1f.0");
    // The shipped machines are all still there, and the new one is listed among them.
    EXPECT_EQ(set.instance_names().size(), 13u);
    EXPECT_EQ(set.host("inf1.2xlarge").chip.name, "inferentia");
    EXPECT_EQ(set.chip_names().size(), 5u);
}

TEST(ConfigUserFile, AddsAnInstanceOfAShippedChipWithADeclaredRing) {
    ConfigTestFiles files;
    const ConfigSet set = files.load_with(R"(instances:
  inf2.lab:
    chip: inferentia2
    devices: 3
    vcpus: 48
    host_memory_bytes: 192GiB
    pci_bdfs: ["10:1e.0", "10:1f.0", "20:1e.0"]
    topology: ring
)");
    const HostSpec host = set.host("inf2.lab");
    EXPECT_EQ(host.chip.cores_per_device, 2u);
    EXPECT_EQ(host.instance.topology, "ring");
    const std::vector<std::vector<uint32_t>> ring = {{2, 1}, {0, 2}, {1, 0}};
    EXPECT_EQ(host.instance.connected_to, ring);
}

TEST(ConfigUserFile, SeveralExtraFilesLoadInOrder) {
    ConfigTestFiles files;
    std::string chips_only = kUserConfig;
    chips_only = chips_only.substr(0, chips_only.find("instances:"));
    const auto first = files.write("chips.yaml", chips_only);
    const auto second = files.write("machines.yaml", R"(instances:
  test.xlarge:
    chip: testchip
    devices: 1
    vcpus: 4
    host_memory_bytes: 16GiB
    pci_bdfs: ["00:1e.0"]
)");
    const ConfigSet set = ConfigSet::load(NSIM_CONFIG_DIR, {first, second});
    EXPECT_EQ(set.host("test.xlarge").chip.name, "testchip");
    EXPECT_TRUE(set.host("test.xlarge").instance.connected_to.at(0).empty());
}

}  // namespace
}  // namespace nsim::config::testing
