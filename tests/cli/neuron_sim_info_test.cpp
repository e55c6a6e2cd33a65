// `neuron-sim info` as a user runs it: every instance prints valid JSON with the required fields,
// and every mistake is one line on stderr with a non-zero exit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "common/command_runner.h"
#include "config/config_set.h"

namespace nsim {
namespace {

using test::count_lines;
using test::run_command;
using test::tool_path;

TEST(NeuronSimInfo, JsonForEveryShippedInstance) {
    const auto configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    for (const std::string& name : configs.instance_names()) {
        const auto r = run_command(tool_path("neuron-sim") + " --instance " + name + " info --json");
        ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
        const auto j = nlohmann::json::parse(r.out);
        const auto spec = configs.host(name);
        ASSERT_EQ(j["devices"].size(), spec.instance.devices) << name;
        for (const auto& d : j["devices"]) {
            EXPECT_EQ(d["cores"].size(), spec.chip.cores_per_device);
            EXPECT_EQ(d["memory_bytes"].get<uint64_t>(), spec.chip.memory.total_bytes());
            EXPECT_TRUE(d["pci_bdf"].is_string());
            EXPECT_TRUE(d["connected_to"].is_array());
        }
    }
}

TEST(NeuronSimInfo, TextNamesTheMachine) {
    const auto r = run_command(tool_path("neuron-sim") + " --instance inf1.2xlarge info");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("inf1.2xlarge"), std::string::npos);
    EXPECT_NE(r.out.find("device 0"), std::string::npos);
    EXPECT_NE(r.out.find("nc3"), std::string::npos);
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(NeuronSimInfo, UnknownInstanceListsTheValidOnes) {
    const auto r = run_command(tool_path("neuron-sim") + " --instance inf9.huge info");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("inf9.huge"), std::string::npos);
    EXPECT_NE(r.err.find("trn1.32xlarge"), std::string::npos);
    EXPECT_NE(r.err.find("inf1.2xlarge"), std::string::npos);
}

TEST(NeuronSimInfo, MissingInstanceIsOneLine) {
    const auto r = run_command("env -u NEURON_SIM_INSTANCE " + tool_path("neuron-sim") + " info");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(NeuronSimInfo, UnknownOptionIsOneLine) {
    const auto r = run_command(tool_path("neuron-sim") + " --instance inf1.2xlarge info --frobnicate");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(NeuronSimInfo, MissingConfigFileIsOneLine) {
    const auto r = run_command(tool_path("neuron-sim") + " --config /nonexistent.yaml --instance x info");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("/nonexistent.yaml"), std::string::npos);
}

TEST(NeuronSimInfo, BadConfigFileNamesFileLineAndKey) {
    const auto dir = std::filesystem::temp_directory_path() / "nsim-info-test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "bad.yaml";
    std::ofstream(file) << "instances:\n  my.instance:\n    chip: inferentia\n    devicez: 1\n";
    const auto r = run_command(tool_path("neuron-sim") + " --config " + file.string() + " --instance my.instance info");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("bad.yaml:4"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("devicez"), std::string::npos) << r.err;
}

TEST(NeuronSimInfo, UserInstanceFromConfigFileIsElaborated) {
    const auto dir = std::filesystem::temp_directory_path() / "nsim-info-test";
    std::filesystem::create_directories(dir);
    const auto configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    const auto base = configs.host("inf2.24xlarge").instance;
    // A user's own two-device inf2 box, linked to each other.
    const auto file = dir / "mine.yaml";
    std::ofstream out(file);
    out << "instances:\n  my.box:\n    chip: " << base.chip << "\n    devices: 2\n    vcpus: 8\n"
        << "    host_memory_bytes: 64GiB\n    pci_bdfs: [\"00:1c.0\", \"00:1d.0\"]\n"
        << "    connected_to: [[1], [0]]\n";
    out.close();
    const auto r = run_command(tool_path("neuron-sim") + " --config " + file.string() + " --instance my.box info --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["devices"].size(), 2u);
    EXPECT_EQ(j["devices"][0]["connected_to"], nlohmann::json::array({1}));
}

}  // namespace
}  // namespace nsim
