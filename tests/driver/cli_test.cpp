// The CLI as a user types it: neuron-sim modprobe / rmmod / fault, with NEURON_SIM_HOME set to a
// private directory; processes holding cores are forked children running the runtime.
#include <gtest/gtest.h>

#include "cli_test_support.h"

namespace nsim {
namespace {

using test::Cli;

TEST(Cli, ModprobeAndRmmodLoadAndUnloadTheModule) {
    Cli cli("inf2.xlarge");
    auto r = cli("modprobe");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out + r.err, "");
    EXPECT_TRUE(std::filesystem::exists(cli.home.path() / "hosts/inf2.xlarge/sys/class/neuron_device/neuron0/reset"));
    EXPECT_EQ(cli("modprobe").exit_code, 0);  // loaded already: nothing to do
    r = cli("rmmod");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = cli("rmmod");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim: rmmod: ERROR: Module neuron is not currently loaded\n");
}

TEST(Cli, RmmodIsRefusedWhileAProcessHoldsADevice) {
    Cli cli("inf2.xlarge");
    ASSERT_EQ(cli("modprobe neuron").exit_code, 0);
    test::Child user = cli.runtime_process(false, true);
    ASSERT_EQ(user.line(), "ok");
    auto r = cli("rmmod neuron");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim: rmmod: ERROR: Module neuron is in use\n");
    user.release();
    EXPECT_EQ(user.wait(), 0);
    r = cli("rmmod neuron");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(driver::HostState(cli.home.path(), cli.instance).read_machine()->driver_loaded);
}

bool module_loaded(const Cli& cli) {
    const auto machine = driver::HostState(cli.home.path(), cli.instance).read_machine();
    return machine && machine->driver_loaded;
}

TEST(Cli, OnlyTheNeuronModuleExists) {
    Cli cli("inf2.xlarge");
    auto r = cli("modprobe nvme");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim: modprobe: FATAL: Module nvme not found (the simulated host has only the neuron module)\n");
    EXPECT_FALSE(module_loaded(cli));
    ASSERT_EQ(cli("modprobe neuron").exit_code, 0);
    r = cli("rmmod nvme");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim: rmmod: ERROR: Module nvme is not currently loaded\n");
    EXPECT_TRUE(module_loaded(cli));
}

TEST(Cli, PlainRmmodAndModprobeAreTheSimulatedHostsOwn) {
    Cli cli("trn1.2xlarge");
    auto r = cli.plain("modprobe neuron");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out + r.err, "");
    EXPECT_TRUE(module_loaded(cli));
    test::Child user = cli.runtime_process(false, true);
    ASSERT_EQ(user.line(), "ok");
    r = cli.plain("rmmod neuron");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "rmmod: ERROR: Module neuron is in use\n");
    EXPECT_TRUE(module_loaded(cli));
    user.release();
    EXPECT_EQ(user.wait(), 0);
    // No instance named: the one host the state home has.
    r = cli.plain("rmmod neuron", "NEURON_SIM_INSTANCE=");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(module_loaded(cli));
    r = cli.plain("rmmod neuron");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "rmmod: ERROR: Module neuron is not currently loaded\n");
    r = cli.plain("modprobe nvme");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "modprobe: FATAL: Module nvme not found (the simulated host has only the neuron module)\n");
    EXPECT_FALSE(module_loaded(cli));
    r = cli.plain("rmmod");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("rmmod: ", 0), 0u) << r.err;
    r = cli.plain("modprobe neuron");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(module_loaded(cli));
}

TEST(Cli, FaultListSetAndClear) {
    Cli cli("trn1.2xlarge");
    auto r = cli("fault set fail_dma_wait 3");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = cli("fault list");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.out), 6);
    EXPECT_NE(r.out.find("fail_dma_wait             3  "), std::string::npos) << r.out;
    EXPECT_EQ(cli("fault clear").exit_code, 0);
    EXPECT_NE(cli("fault list").out.find("fail_dma_wait             0  "), std::string::npos);
    r = cli("fault set nope 1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim: unknown fault 'nope' (one of: fail_nc_mmap, fail_dma_wait, fail_mc_alloc, fail_fwio_read, "
                     "fail_fwio_post_metric, firmware_hang)\n");
}

TEST(CliFaults, FailDmaWaitFailsTheNextLoadThenLoadsWork) {
    Cli cli("inf2.xlarge");
    ASSERT_EQ(cli("modprobe").exit_code, 0);
    ASSERT_EQ(cli("fault set fail_dma_wait 1").exit_code, 0);
    test::Child failing = cli.runtime_process(true, false);
    EXPECT_EQ(failing.line().rfind("NRT:nrt_load DMA completion timeout on nd00 for eng 15 q0", 0), 0u);
    EXPECT_EQ(failing.wait(), 1);
    test::Child working = cli.runtime_process(true, false);
    EXPECT_EQ(working.line(), "ok");
    EXPECT_EQ(working.wait(), 0);
}

TEST(CliFaults, FailMcAllocFailsTheNextLoadThenLoadsWork) {
    Cli cli("inf2.xlarge");
    ASSERT_EQ(cli("modprobe").exit_code, 0);
    ASSERT_EQ(cli("fault set fail_mc_alloc 1").exit_code, 0);
    test::Child failing = cli.runtime_process(true, false);
    EXPECT_EQ(failing.line().rfind("NRT:nrt_load neuron:mc_alloc: device mempool [0:0] total", 0), 0u);
    EXPECT_EQ(failing.wait(), 1);
    test::Child working = cli.runtime_process(true, false);
    EXPECT_EQ(working.line(), "ok");
    EXPECT_EQ(working.wait(), 0);
}

TEST(CliFaults, FailFwioReadLeavesTheDeviceInvalidUntilRmmodAndModprobe) {
    Cli cli("inf2.xlarge");
    ASSERT_EQ(cli("fault set fail_fwio_read -1").exit_code, 0);
    auto r = cli("modprobe");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("neuron-sim: modprobe: nd0: seq: 15, cmd: 1 timed out (device INVALID; kernel log: ", 0), 0u) << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1);
    test::Child user = cli.runtime_process(false, false);
    EXPECT_EQ(user.line(), "NRT:nrt_init Failed to initialize devices: nd0 is in an invalid state "
                           "(recover with: neuron-sim --instance inf2.xlarge rmmod neuron && neuron-sim --instance inf2.xlarge modprobe neuron)");
    EXPECT_EQ(user.wait(), 1);
    EXPECT_EQ(cli("rmmod").exit_code, 0);   // debugfs goes with the module: the switch is off again
    r = cli("modprobe");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    test::Child after = cli.runtime_process(true, false);
    EXPECT_EQ(after.line(), "ok");
    EXPECT_EQ(after.wait(), 0);
}

TEST(CliFaults, FirmwareHangFailsTheResetUntilRmmodAndModprobe) {
    Cli cli("trn1.2xlarge");
    ASSERT_EQ(cli("fault set firmware_hang 1").exit_code, 0);
    auto r = cli("modprobe");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("neuron-sim: modprobe: nd0: reset request 4294967295 was initiated, but failed to complete "
                          "(firmware did not acknowledge within 120 s, 4 attempts) (device INVALID; kernel log: ", 0), 0u)
        << r.err;
    test::Child user = cli.runtime_process(false, false);
    EXPECT_NE(user.line().find("nd0 is in an invalid state"), std::string::npos);
    EXPECT_EQ(user.wait(), 1);
    EXPECT_EQ(cli("rmmod").exit_code, 0);
    r = cli("modprobe");  // the hang was armed for one bring-up
    EXPECT_EQ(r.exit_code, 0) << r.err;
    test::Child after = cli.runtime_process(false, false);
    EXPECT_EQ(after.line(), "ok");
    EXPECT_EQ(after.wait(), 0);
}

}  // namespace
}  // namespace nsim
