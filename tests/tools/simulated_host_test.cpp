// The simulated host as a user meets it from the first command: it boots with its driver loaded,
// remembers the --config it was made with, names itself in recovery hints, and its tools agree with
// the real ones (modprobe -r, --version, the environment in --help, fault switches as documented,
// kernel.log with boot-relative monotonic stamps and a dmesg view, a killed process's detach,
// neuron-ls --topology).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "common/temp_directory.h"
#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "prepared_host.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

test::CommandResult tool(const test::PreparedHost& host, const std::string& name, const std::string& args) {
    return test::run_command(test::tool_path(name) + " " + args, host.env());
}

std::string one_core_program(const std::string& target = "v2") {
    const std::string text = ".target " + target + "\n.cores 1\n.core 0\nact activation dst=fp32 sbuf[0:128] +0 [[1,512]], "
                             "src=fp32 sbuf[0:128] +4096 [[1,512]], func=exp, scale=1, bias=none, reduce_op=none, reduce_dst=none\n";
    const fs::path path = test::scratch_path("host_test_" + target + ".bin");
    isa::write_file(path, isa::write_container(isa::assemble(text, "host_test.s").container));
    return path.string();
}

// The kernel log's stamps, in order.
std::vector<double> stamps(const std::string& dmesg) {
    std::vector<double> out;
    const std::regex stamp(R"(^\[\s*([0-9]+\.[0-9]+)\] neuron: )");
    std::istringstream lines(dmesg);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, stamp)) out.push_back(std::stod(m[1]));
    }
    return out;
}

TEST(SimulatedHost, RmmodWorksAsTheVeryFirstCommandOfAFreshHost) {
    test::PreparedHost host("inf1.2xlarge");
    const auto rmmod = tool(host, "neuron-sim", "--instance inf1.2xlarge rmmod");
    EXPECT_EQ(rmmod.exit_code, 0) << rmmod.err;   // the host booted with its driver loaded, then unloaded it
    const auto ls = tool(host, "neuron-ls", "");
    EXPECT_EQ(ls.exit_code, 1);
    EXPECT_NE(ls.err.find("the neuron driver is not loaded"), std::string::npos) << ls.err;
    EXPECT_EQ(tool(host, "neuron-sim", "modprobe").exit_code, 0);
    EXPECT_EQ(tool(host, "neuron-ls", "").exit_code, 0);
}

TEST(SimulatedHost, AHostMadeWithConfigIsKnownToEveryToolWithoutIt) {
    test::PreparedHost host("my.box");
    const fs::path yaml = host.home() / "my.yaml";
    std::ofstream(yaml) << "instances:\n  my.box:\n    chip: inferentia2\n    devices: 1\n    vcpus: 4\n"
                           "    host_memory_bytes: 16GiB\n    host_copy_bytes_per_s: 10GB/s\n    pci_bdfs: [\"00:1e.0\"]\n";
    ASSERT_EQ(tool(host, "neuron-sim", "--config " + yaml.string() + " -i my.box modprobe").exit_code, 0);
    fs::remove(yaml);   // remembered, not re-read
    const auto ls = tool(host, "neuron-ls", "");
    ASSERT_EQ(ls.exit_code, 0) << ls.err;
    EXPECT_NE(ls.out.find("instance-type: my.box"), std::string::npos) << ls.out;
    EXPECT_EQ(tool(host, "neuron-ls", "-i my.box --json-output").exit_code, 0);
    EXPECT_EQ(tool(host, "neuron-top", "--once").exit_code, 0);
    const auto run = tool(host, "neuron-sim", "-i my.box run " + one_core_program());
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(tool(host, "neuron-sim", "rmmod neuron").exit_code, 0);
    EXPECT_EQ(tool(host, "neuron-sim", "fault list").exit_code, 0);   // the only host, as rmmod picks it
}

TEST(SimulatedHost, RecoveryHintsNameTheHostAndWorkWithSeveralHosts) {
    test::PreparedHost host("trn1.2xlarge");
    ASSERT_EQ(tool(host, "neuron-sim", "-i inf2.xlarge modprobe").exit_code, 0);   // a second host
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge fault set fail_fwio_read -1").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe").exit_code, 1);
    const auto run = tool(host, "neuron-sim", "-i trn1.2xlarge run " + one_core_program());
    EXPECT_EQ(run.exit_code, 1);
    const std::string hint = "neuron-sim --instance trn1.2xlarge rmmod neuron && neuron-sim --instance trn1.2xlarge modprobe neuron";
    ASSERT_NE(run.err.find(hint), std::string::npos) << run.err;
    // The hint, as given, recovers the device although the state holds two hosts.
    const std::string sim_dir = fs::path(test::tool_path("neuron-sim")).parent_path().string();
    EXPECT_EQ(test::run_command("sh -c 'PATH=" + sim_dir + ":$PATH; " + hint + "'", host.env()).exit_code, 0);
    const auto recovered = tool(host, "neuron-sim", "-i trn1.2xlarge run " + one_core_program());
    EXPECT_EQ(recovered.exit_code, 0) << recovered.err;
}

TEST(SimulatedHost, ModprobeMinusRRemovesTheModule) {
    test::PreparedHost host("trn1.2xlarge");
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe -r neuron").exit_code, 0);
    EXPECT_EQ(tool(host, "neuron-ls", "").exit_code, 1);
    ASSERT_EQ(tool(host, "neuron-sim", "modprobe").exit_code, 0);
    const auto plain = test::run_command(test::tool_path("sbin/modprobe") + " -r neuron", host.env());
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(tool(host, "neuron-ls", "").exit_code, 1);
}

TEST(SimulatedHost, EveryToolHasVersionAndItsHelpListsTheEnvironment) {
    test::PreparedHost host("trn1.2xlarge");
    for (const std::string name : {"neuron-sim", "neuron-ls", "neuron-top", "neuron-monitor", "neuron-monitor-prometheus",
                                   "neuron-as", "neuron-objdump", "neuron-build"}) {
        const auto r = tool(host, name, "--version");
        EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
        EXPECT_EQ(r.out.rfind(name + " ", 0), 0u) << r.out;
    }
    const auto sim = tool(host, "neuron-sim", "--help");
    for (const char* variable : {"NEURON_SIM_HOME", "NEURON_SIM_INSTANCE", "NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES",
                                 "NEURON_RT_EXEC_TIMEOUT", "NEURON_PROCESS_TAG"})
        EXPECT_NE(sim.out.find(variable), std::string::npos) << variable << " missing from\n" << sim.out;
    for (const std::string viewer : {"neuron-ls", "neuron-top", "neuron-monitor"}) {
        const auto help = tool(host, viewer, "--help");
        EXPECT_NE(help.out.find("NEURON_SIM_HOME"), std::string::npos) << viewer;
        EXPECT_NE(help.out.find("NEURON_SIM_INSTANCE"), std::string::npos) << viewer;
    }
}

TEST(SimulatedHost, DriverFaultSwitchesGoWithTheModuleAndHardwareFaultsStay) {
    test::PreparedHost host("trn1.2xlarge");
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe").exit_code, 0);
    const auto list = tool(host, "neuron-sim", "fault list");
    for (const char* name : {"fail_nc_mmap", "fail_dma_wait", "fail_mc_alloc", "fail_fwio_read", "fail_fwio_post_metric", "firmware_hang"})
        EXPECT_NE(list.out.find(name), std::string::npos) << name;
    ASSERT_EQ(tool(host, "neuron-sim", "fault set fail_fwio_read 1").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "fault set firmware_hang 1").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "rmmod").exit_code, 0);
    const auto after = tool(host, "neuron-sim", "fault list").out;
    EXPECT_TRUE(std::regex_search(after, std::regex(R"(fail_fwio_read\s+0 )"))) << after;   // removed with debugfs
    EXPECT_TRUE(std::regex_search(after, std::regex(R"(firmware_hang\s+1 )"))) << after;    // the hardware's
    ASSERT_EQ(tool(host, "neuron-sim", "fault clear firmware_hang").exit_code, 0);
    // Armed while unloaded, a switch reaches modprobe, as the help says.
    ASSERT_EQ(tool(host, "neuron-sim", "fault set fail_fwio_read -1").exit_code, 0);
    EXPECT_EQ(tool(host, "neuron-sim", "modprobe").exit_code, 1);
    EXPECT_NE(tool(host, "neuron-sim", "fault --help").out.find("rmmod removes them"), std::string::npos);
}

TEST(SimulatedHost, APostMetricFailureIsLoggedAndTheRunGoesOn) {
    test::PreparedHost host("trn1.2xlarge");
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "fault set fail_fwio_post_metric 1").exit_code, 0);
    const auto run = tool(host, "neuron-sim", "-i trn1.2xlarge run " + one_core_program());
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(tool(host, "neuron-sim", "dmesg").out.find("nd0: failed to post metrics"), std::string::npos);
    EXPECT_TRUE(std::regex_search(tool(host, "neuron-sim", "fault list").out, std::regex(R"(fail_fwio_post_metric\s+0 )")));
}

TEST(SimulatedHost, KernelLogStampsAreBootRelativeAndMonotonicAcrossProcesses) {
    test::PreparedHost host("trn1.2xlarge");
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "rmmod").exit_code, 0);
    ASSERT_EQ(tool(host, "neuron-sim", "modprobe").exit_code, 0);
    const auto dmesg = tool(host, "neuron-sim", "dmesg");
    ASSERT_EQ(dmesg.exit_code, 0) << dmesg.err;
    const std::vector<double> t = stamps(dmesg.out);
    ASSERT_GE(t.size(), 4u) << dmesg.out;
    for (size_t i = 1; i < t.size(); ++i) EXPECT_GT(t[i], t[i - 1]) << dmesg.out;
    EXPECT_EQ(dmesg.out.find("[    0.000000]"), std::string::npos) << dmesg.out;
    // The first modprobe's lines carry its simulated firmware waits: the device reset takes seconds.
    EXPECT_GT(t.back(), 2.0) << dmesg.out;
}

TEST(SimulatedHost, AKilledProcessIsDetachedWhenItsClaimIsReaped) {
    test::PreparedHost host("trn1.2xlarge");
    ASSERT_EQ(tool(host, "neuron-sim", "-i trn1.2xlarge modprobe").exit_code, 0);
    driver::ProcessRecord dead = host.finished_process("killed-app");
    dead.open_devices = {0};
    dead.cores = {{0, 0}};
    host.write(dead);
    ASSERT_EQ(tool(host, "neuron-ls", "").exit_code, 0);   // a reader reaps the stale record
    EXPECT_NE(tool(host, "neuron-sim", "dmesg").out.find(fmt::format("npid_detach: pid={}", dead.pid)), std::string::npos);
}

TEST(SimulatedHost, NeuronLsDrawsTheTopology) {
    test::PreparedHost host("trn1.32xlarge");
    const auto torus = tool(host, "neuron-ls", "-i trn1.32xlarge --topology");
    ASSERT_EQ(torus.exit_code, 0) << torus.err;
    EXPECT_NE(torus.out.find("Neuron Device Topology"), std::string::npos);
    EXPECT_NE(torus.out.find("*––►[ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]◄––*"), std::string::npos) << torus.out;
    EXPECT_NE(torus.out.find("*––►[12 ]◄––►[13 ]◄––►[14 ]◄––►[15 ]◄––*"), std::string::npos) << torus.out;
    const auto chain = tool(host, "neuron-ls", "-i inf1.6xlarge --topology");
    ASSERT_EQ(chain.exit_code, 0) << chain.err;
    EXPECT_NE(chain.out.find("[ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]"), std::string::npos) << chain.out;
}

}  // namespace
}  // namespace nsim
