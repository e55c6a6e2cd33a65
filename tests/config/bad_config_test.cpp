// One test per kind of bad config file, each asserting the exact one-line message:
// "FILE:LINE: key 'dotted.path': problem".
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "config_test_files.h"
#include "user_config_text.h"

namespace nsim::config::testing {
namespace {

class ConfigBadFile : public ::testing::Test {
protected:
    // The message expected for a problem on the line of `text` holding `needle`.
    std::string expected(const std::string& text, const std::string& needle,
                         const std::string& rest) const {
        return files.user_file().string() + ":" + std::to_string(line_of(text, needle)) + ": " + rest;
    }
    // The user file with `from` replaced by `to`, and the error it gives.
    std::string error_after(const std::string& from, const std::string& to) {
        text = replaced(kUserConfig, from, to);
        return files.error_with(text);
    }
    // Breaking the user file by replacing `from` with `to` gives `problem` on the line holding
    // `needle`.
    void expect_error(const std::string& from, const std::string& to, const std::string& needle,
                      const std::string& problem) {
        const std::string error = error_after(from, to);
        EXPECT_EQ(error, expected(text, needle, problem));
    }
    static std::string read(const std::filesystem::path& path) {
        std::ifstream in(path);
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }

    ConfigTestFiles files;
    std::string text;
};

TEST_F(ConfigBadFile, ValidBaseFileLoads) { EXPECT_EQ(files.error_with(kUserConfig), "no error"); }

// --- YAML syntax -----------------------------------------------------------------------------

TEST_F(ConfigBadFile, SyntaxErrorNamesLineAndEnclosingKeyNotYamlCppText) {
    const std::string error = error_after("    vcpus: 16\n", "   vcpus: 16\n");
    EXPECT_EQ(error, expected(text, "   vcpus: 16", "key 'instances.test.4xlarge.vcpus': "
                                                     "YAML syntax error: end of map not found"));
    EXPECT_EQ(error.find("yaml-cpp"), std::string::npos);
}

TEST_F(ConfigBadFile, UnclosedFlowList) {
    expect_error("[[1], [0, 2], [1, 3], [2]]", "[[1], [0, 2], [1, 3], [2]", "connected_to:", "key 'instances.test.4xlarge.connected_to': "
                                               "YAML syntax error: end of sequence flow not found");
}

TEST_F(ConfigBadFile, TabIndentation) {
    expect_error("    devices: 4\n", "\tdevices: 4\n", "\tdevices: 4",
                       "key 'instances.test.4xlarge.devices': YAML syntax error: illegal tab when "
                       "looking for indentation");
}

TEST_F(ConfigBadFile, EmptyFile) {
    EXPECT_EQ(files.error_with(""),
              files.user_file().string() +
                  ":1: the file is empty; expected 'neuron_core' and 'chips', and/or 'instances'");
}

TEST_F(ConfigBadFile, TopLevelNotAMap) {
    EXPECT_EQ(files.error_with("- inf1.xlarge\n"),
              files.user_file().string() + ":1: expected a map with 'neuron_core' and 'chips', "
                                           "and/or 'instances', got a list");
}

TEST_F(ConfigBadFile, MissingFile) {
    const auto missing = files.dir() / "nowhere.yaml";
    try {
        ConfigSet::load(NSIM_CONFIG_DIR, {missing});
        FAIL() << "no error";
    } catch (const ConfigError& error) {
        EXPECT_EQ(std::string(error.what()), missing.string() + ": cannot open the YAML config file: No such file or directory");
    }
}

std::string load_error(const std::filesystem::path& config_dir) {
    try {
        ConfigSet::load(config_dir);
    } catch (const ConfigError& error) {
        return error.what();
    }
    return "no error";
}

TEST_F(ConfigBadFile, MissingConfigDirectory) {
    const std::string not_a_directory = ": not a config directory (one holds chips/*.yaml and instances.yaml)";
    EXPECT_EQ(load_error(files.dir() / "no-configs"), (files.dir() / "no-configs").string() + not_a_directory);
    EXPECT_EQ(load_error("/dev/zero"), "/dev/zero" + not_a_directory);
    std::filesystem::create_directories(files.dir() / "empty-configs" / "chips");
    EXPECT_EQ(load_error(files.dir() / "empty-configs"),
              (files.dir() / "empty-configs" / "chips").string() + ": no chip files (*.yaml) found");
}

// --- Unknown, missing, repeated keys ---------------------------------------------------------

TEST_F(ConfigBadFile, UnknownKey) {
    expect_error("      channels: 2", "      chanels: 2", "chanels:",
                       "key 'chips.testchip.memory.chanels': unknown key (expected one of: type, "
                       "channels, channel_bytes, channel_stride_bytes, bytes_per_s, latency_s, "
                       "refresh_interval_s, refresh_time_s)");
}

TEST_F(ConfigBadFile, UnknownTopLevelKey) {
    expect_error("instances:\n", "instance:\n", "instance:", "key 'instance': unknown key (expected one of: "
                                          "neuron_core, chips, instances)");
}

TEST_F(ConfigBadFile, MissingKey) {
    expect_error("      latency_s: 90ns\n", "", "    memory:", "key 'chips.testchip.memory.latency_s': missing");
}

TEST_F(ConfigBadFile, NeuronCoreWithoutChips) {
    std::string core_only = kUserConfig;
    core_only = core_only.substr(0, core_only.find("chips:"));
    EXPECT_EQ(files.error_with(core_only), files.user_file().string() + ":1: key 'chips': missing");
}

TEST_F(ConfigBadFile, RepeatedKey) {
    expect_error("    vcpus: 16\n", "    vcpus: 16\n    vcpus: 8\n", "vcpus: 8", "key 'instances.test.4xlarge.vcpus': defined twice in this map");
}

// --- Wrong types ----------------------------------------------------------------------------

TEST_F(ConfigBadFile, WordWhereANumberBelongs) {
    expect_error("devices: 4", "devices: four", "devices: four", "key 'instances.test.4xlarge.devices': "
                                              "expected an unsigned integer, got 'four'");
}

TEST_F(ConfigBadFile, NegativeNumber) {
    expect_error("vcpus: 16", "vcpus: -16", "vcpus: -16", "key 'instances.test.4xlarge.vcpus': "
                                           "expected an unsigned integer, got '-16'");
}

TEST_F(ConfigBadFile, ScalarWhereAMapBelongs) {
    expect_error("    pcie: {generation: 4, lanes: 8, bytes_per_s: 13GB/s, latency_s: 500ns}",
                          "    pcie: fast", "pcie: fast", "key 'chips.testchip.pcie': expected a map, got 'fast'");
}

TEST_F(ConfigBadFile, WrongUnit) {
    expect_error("bytes_per_s: 100GB/s", "bytes_per_s: 100GB", "bytes_per_s: 100GB", "key 'chips.testchip.memory.bytes_per_s': "
                                                   "expected a bandwidth such as 100GB/s, got '100GB'");
}

TEST_F(ConfigBadFile, FractionOfAByte) {
    expect_error("host_memory_bytes: 64GiB", "host_memory_bytes: 0.1KiB", "host_memory_bytes", "key 'instances.test.4xlarge.host_memory_bytes': "
                                                  "'0.1KiB' is not a whole number of bytes");
}

TEST_F(ConfigBadFile, UnknownDataType) {
    expect_error("bf16: 32TFLOPS", "bf17: 32TFLOPS", "bf17", "key 'neuron_core.tensor.peak_flops.bf17': unknown data type "
                                     "(expected one of: fp8, bf16, fp16, tf32, fp32, int8)");
}

TEST_F(ConfigBadFile, SharedPortEngineTheCoreDoesNotHave) {
    expect_error("  dma_transfer_overhead_s: 1us\n", "  dma_transfer_overhead_s: 1us\n  psum_shared_port_engines: [vector, scalar]\n",
                 "psum_shared_port_engines", "key 'neuron_core.psum_shared_port_engines[1]': the core has no 'scalar' engine");
}

TEST_F(ConfigBadFile, SharedPortEngineListedTwice) {
    expect_error("  dma_transfer_overhead_s: 1us\n", "  dma_transfer_overhead_s: 1us\n  sbuf_shared_port_engines: [vector, vector]\n",
                 "sbuf_shared_port_engines", "key 'neuron_core.sbuf_shared_port_engines[1]': 'vector' is listed twice");
}

TEST_F(ConfigBadFile, SharedPortEnginesNotAList) {
    expect_error("  dma_transfer_overhead_s: 1us\n", "  dma_transfer_overhead_s: 1us\n  sbuf_shared_port_engines: vector\n",
                 "sbuf_shared_port_engines", "key 'neuron_core.sbuf_shared_port_engines': must be a list of engine names");
}

// --- Impossible values ----------------------------------------------------------------------

TEST_F(ConfigBadFile, ZeroCores) {
    expect_error("cores_per_device: 2", "cores_per_device: 0", "cores_per_device", "key 'chips.testchip.cores_per_device': "
                                                 "must be greater than zero");
}

TEST_F(ConfigBadFile, ZeroDevices) {
    expect_error("devices: 4", "devices: 0", "devices: 0", "key 'instances.test.4xlarge.devices': "
                                           "must be greater than zero");
}

TEST_F(ConfigBadFile, ZeroPartitions) {
    expect_error("sbuf: {partitions: 128", "sbuf: {partitions: 0", "sbuf:", "key 'neuron_core.sbuf.partitions': must be greater than zero");
}

TEST_F(ConfigBadFile, DeviceLinkedToItself) {
    expect_error("[[1], [0, 2]", "[[1], [1, 0, 2]", "connected_to:", "key 'instances.test.4xlarge.connected_to[1][0]': "
                                              "device 1 is linked to itself");
}

TEST_F(ConfigBadFile, LinkToDeviceOutOfRange) {
    expect_error("[1, 3], [2]]", "[1, 3], [2, 4]]", "connected_to:", "key 'instances.test.4xlarge.connected_to[3][1]': "
                                              "device 4 does not exist (devices are 0 to 3)");
}

TEST_F(ConfigBadFile, LinksNotSymmetric) {
    expect_error("[1, 3], [2]]", "[1, 3], []]", "connected_to:", "key 'instances.test.4xlarge.connected_to[2][1]': "
                                              "device 2 links to 3 but device 3 does not link back");
}

TEST_F(ConfigBadFile, MoreLinksThanPorts) {
    expect_error("ports: 2", "ports: 1", "connected_to:", "key 'instances.test.4xlarge.connected_to': "
                                              "device 1 has 2 links but a testchip has 1 link port(s)");
}

TEST_F(ConfigBadFile, TorusOfTheWrongSize) {
    expect_error("    connected_to: [[1], [0, 2], [1, 3], [2]]", "    topology: {torus: [2, 3]}", "topology:", "key 'instances.test.4xlarge.topology.torus': "
                                          "a 2 x 3 torus has 6 devices, the instance has 4");
}

TEST_F(ConfigBadFile, ExplicitLinksContradictDeclaredTopology) {
    expect_error("    connected_to:", "    topology: ring\n    connected_to:", "connected_to:", "key 'instances.test.4xlarge.connected_to[0]': "
                                              "device 0 links to [1] but the declared ring gives [3, 1]");
}

TEST_F(ConfigBadFile, UnknownTopology) {
    expect_error("    connected_to: [[1], [0, 2], [1, 3], [2]]", "    topology: mesh", "topology:", "key 'instances.test.4xlarge.topology': expected none, "
                                          "chain, ring or {torus: [rows, cols]}, got 'mesh'");
}

TEST_F(ConfigBadFile, PciAddressCountNotDeviceCount) {
    expect_error(", \"0000:00:1F.0\"]", "]", "pci_bdfs:", "key 'instances.test.4xlarge.pci_bdfs': "
                                          "4 device(s) need 4 PCI address(es), got 3");
}

TEST_F(ConfigBadFile, DuplicatePciAddress) {
    expect_error("\"00:1d.0\"", "\"0000:00:1c.0\"", "pci_bdfs:", "key 'instances.test.4xlarge.pci_bdfs[1]': "
                                          "PCI address 00:1c.0 is already used by device 0");
}

TEST_F(ConfigBadFile, MalformedPciAddress) {
    expect_error("\"00:1d.0\"", "\"00:1d\"", "pci_bdfs:", "key 'instances.test.4xlarge.pci_bdfs[1]': "
                                          "expected a PCI address such as 00:04.0, got '00:1d'");
}

// The user instance with NUMA keys after its links (16 vCPUs, 4 devices).
constexpr const char* kLinks = "    connected_to: [[1], [0, 2], [1, 3], [2]]\n";
std::string with_numa(const std::string& cpus, const std::string& devices) {
    return std::string(kLinks) + "    numa_node_cpus: " + cpus + "\n    device_numa_nodes: " + devices + "\n";
}

// --- collectives (issue 16) -------------------------------------------------------------------

TEST_F(ConfigBadFile, CollectiveRankCountOfOne) {
    expect_error(kLinks, std::string(kLinks) + "    collective_rank_counts: [2, 1]\n", "collective_rank_counts:",
                 "key 'instances.test.4xlarge.collective_rank_counts[1]': a collective needs 2 to 8 ranks (the "
                 "instance's NeuronCores), not 1");
}

TEST_F(ConfigBadFile, CollectiveRankCountListedTwice) {
    expect_error(kLinks, std::string(kLinks) + "    collective_rank_counts: [2, 8, 2]\n", "collective_rank_counts:",
                 "key 'instances.test.4xlarge.collective_rank_counts[2]': 2 is listed twice");
}

TEST_F(ConfigBadFile, NoCollectiveRings) {
    expect_error("latency_s: 1us}", "latency_s: 1us, collective_rings: 0}", "link:",
                 "key 'chips.testchip.link.collective_rings': must be greater than zero");
}

// --- EFA (issue 17) ----------------------------------------------------------------------------

std::string with_efa(const std::string& devices, const std::string& algorithm) {
    return std::string(kLinks) + "    efa: {devices: " + devices + ", bytes_per_s: 12.5GB/s, latency_s: 15us, "
                                 "collective_algorithm: " + algorithm + "}\n";
}

TEST_F(ConfigBadFile, EfaAlgorithmOtherThanHierarchical) {
    expect_error(kLinks, with_efa("2", "ring"), "efa:",
                 "key 'instances.test.4xlarge.efa.collective_algorithm': expected hierarchical, got 'ring'");
}

TEST_F(ConfigBadFile, MoreEfaDevicesThanNeuronDevices) {
    expect_error(kLinks, with_efa("5", "hierarchical"), "efa:",
                 "key 'instances.test.4xlarge.efa.devices': 5 EFA devices on 4 Neuron device(s): each EFA sits on a "
                 "Neuron device of its own");
}

TEST_F(ConfigBadFile, NumaNodeCpusNotACpuList) {
    expect_error(kLinks, with_numa("[\"0-7\", \"8-\"]", "[0, 0, 1, 1]"), "numa_node_cpus:",
                 "key 'instances.test.4xlarge.numa_node_cpus[1]': expected a CPU list such as 0-23,48-71, got '8-'");
}

TEST_F(ConfigBadFile, NumaNodeCpuBeyondTheVcpus) {
    expect_error(kLinks, with_numa("[\"0-7\", \"8-16\"]", "[0, 0, 1, 1]"), "numa_node_cpus:",
                 "key 'instances.test.4xlarge.numa_node_cpus[1]': CPU 16 does not exist (the instance has 16 vCPUs, 0-15)");
}

TEST_F(ConfigBadFile, NumaNodesShareACpu) {
    expect_error(kLinks, with_numa("[\"0-8\", \"8-15\"]", "[0, 0, 1, 1]"), "numa_node_cpus:",
                 "key 'instances.test.4xlarge.numa_node_cpus[1]': CPU 8 is already in NUMA node 0");
}

TEST_F(ConfigBadFile, DeviceOnANumaNodeThatDoesNotExist) {
    expect_error(kLinks, with_numa("[\"0-7\", \"8-15\"]", "[0, 0, 1, 2]"), "device_numa_nodes:",
                 "key 'instances.test.4xlarge.device_numa_nodes[3]': NUMA node 2 does not exist (numa_node_cpus has 2)");
}

TEST_F(ConfigBadFile, DeviceNumaNodeCountNotDeviceCount) {
    expect_error(kLinks, with_numa("[\"0-7\", \"8-15\"]", "[0, 1]"), "device_numa_nodes:",
                 "key 'instances.test.4xlarge.device_numa_nodes': 4 device(s) need 4 NUMA node(s), got 2");
}

TEST_F(ConfigBadFile, NumaNodeCpusWithoutDeviceNumaNodes) {
    expect_error(kLinks, std::string(kLinks) + "    numa_node_cpus: [\"0-15\"]\n", "numa_node_cpus:",
                 "key 'instances.test.4xlarge.numa_node_cpus': numa_node_cpus and device_numa_nodes go together "
                 "(neither: one NUMA node)");
}

TEST_F(ConfigBadFile, MemoryStrideNotAPowerOfTwo) {
    expect_error("channel_stride_bytes: 64GiB", "channel_stride_bytes: 48GiB", "channel_stride_bytes", "key 'chips.testchip.memory.channel_stride_bytes': "
                       "must be a power of two (the device decodes channel addresses by bits)");
}

TEST_F(ConfigBadFile, RefreshIntervalWithoutRefreshTime) {
    expect_error("      latency_s: 90ns\n", "      latency_s: 90ns\n      refresh_interval_s: 7.8us\n",
                 "refresh_interval_s:", "key 'chips.testchip.memory.refresh_interval_s': refresh_interval_s and "
                                        "refresh_time_s go together (neither: no refresh)");
}

TEST_F(ConfigBadFile, RefreshNotShorterThanItsInterval) {
    expect_error("      latency_s: 90ns\n",
                 "      latency_s: 90ns\n      refresh_interval_s: 300ns\n      refresh_time_s: 350ns\n",
                 "refresh_time_s:", "key 'chips.testchip.memory.refresh_time_s': must be shorter than "
                                    "refresh_interval_s (the channel would never serve)");
}

TEST_F(ConfigBadFile, BarSizeNotAPowerOfTwo) {
    expect_error("size: 1MiB", "size: 3MiB", "size: 3MiB", "key 'chips.testchip.pci.bars[0].size': "
                                           "must be a power of two (PCI BAR sizes are)");
}

TEST_F(ConfigBadFile, MemoryBarSmallerThanMemory) {
    expect_error("size: 8GiB", "size: 4GiB", "    pci:", "key 'chips.testchip.pci': device-memory BAR (4294967296 "
                                         "bytes) is smaller than the device memory (8589934592 bytes)");
}

TEST_F(ConfigBadFile, InstanceNamesUnknownChip) {
    expect_error("chip: testchip", "chip: testchip2", "chip: testchip2", "key 'instances.test.4xlarge.chip': unknown chip "
                       "'testchip2'; valid chips: inferentia, inferentia2, testchip, trainium1, trainium2");
}

TEST_F(ConfigBadFile, RedefinedInstance) {
    const auto shipped = std::filesystem::path(NSIM_CONFIG_DIR) / "instances.yaml";
    const std::string where = shipped.string() + ":" + std::to_string(line_of(read(shipped), "  inf1.xlarge:"));
    expect_error("  test.4xlarge:", "  inf1.xlarge:", "inf1.xlarge:", "key 'instances.inf1.xlarge': instance 'inf1.xlarge' "
                                             "is already defined at " + where);
}

TEST_F(ConfigBadFile, RedefinedChip) {
    const auto shipped = std::filesystem::path(NSIM_CONFIG_DIR) / "chips" / "nc-v2.yaml";
    const std::string where = shipped.string() + ":" + std::to_string(line_of(read(shipped), "  inferentia2:"));
    expect_error("  testchip:", "  inferentia2:", "inferentia2:", "key 'chips.inferentia2': chip 'inferentia2' is "
                                             "already defined at " + where);
}

}  // namespace
}  // namespace nsim::config::testing
