// `neuron-sim run` of an assembled program goes through the runtime like any other: a core another
// live process holds is refused with one line naming the holder, and so is a run while the neuron
// module is unloaded or a device is INVALID, until rmmod + modprobe bring the device back.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "common/temp_directory.h"
#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "prepared_host.h"

namespace nsim {
namespace {

std::string one_core_program() {
    const std::string text =
        ".target v2\n.cores 1\n.sem s 0\n.core 0\n"
        "act activation dst=fp32 sbuf[0:128] +0 [[1,512]], src=fp32 sbuf[0:128] +4096 [[1,512]], func=exp, scale=1, "
        "bias=none, reduce_op=none, reduce_dst=none\n";
    const std::filesystem::path path = test::scratch_path("run_busy.bin");
    isa::write_file(path, isa::write_container(isa::assemble(text, "run_busy.s").container));
    return path.string();
}

TEST(RunBusy, AProgramOnACoreAnotherProcessHoldsIsRefused) {
    test::PreparedHost host("trn1.2xlarge");
    driver::ProcessRecord other = host.start_process("other-app --model x");
    other.cores = {{0, 0}};
    host.write(other);
    const std::string run = test::tool_path("neuron-sim") + " --instance trn1.2xlarge run " + one_core_program();
    auto r = test::run_command(run, host.env());
    EXPECT_EQ(r.exit_code, 1);
    // By default the runtime claims every NeuronCore of the host.
    EXPECT_EQ(r.err, fmt::format("neuron-sim: NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:nc0-nc1 "
                                 "Available:1 (nc0 is in use by PID {}: other-app --model x)\n", other.pid));
    EXPECT_EQ(r.out, "");

    other.cores = {{0, 1}};  // the other process moves to the second core: the program's core is free
    host.write(other);
    r = test::run_command(run, host.env() + " NEURON_RT_VISIBLE_CORES=0");
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

// `neuron-sim ARGS` on the prepared host.
test::CommandResult sim(const test::PreparedHost& host, const std::string& args) {
    return test::run_command(test::tool_path("neuron-sim") + " --instance trn1.2xlarge " + args, host.env());
}

void expect_report(const test::CommandResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("cycles"), std::string::npos) << r.out;
}

TEST(RunBusy, AProgramIsRefusedWhileItsDeviceIsInvalidUntilRmmodAndModprobe) {
    test::PreparedHost host("trn1.2xlarge");
    const std::string program = one_core_program();
    // The firmware never answers the mailbox at bring-up: the device is left INVALID.
    ASSERT_EQ(sim(host, "fault set fail_fwio_read -1").exit_code, 0);
    ASSERT_EQ(sim(host, "modprobe neuron").exit_code, 1);
    for (int attempt = 0; attempt < 2; ++attempt) {  // nothing resets the device in between
        const auto r = sim(host, "run " + program);
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_EQ(r.err, "neuron-sim: NRT:nrt_init Failed to initialize devices: nd0 is in an invalid state (recover with: "
                         "neuron-sim --instance trn1.2xlarge rmmod neuron && neuron-sim --instance trn1.2xlarge modprobe neuron)\n");
        EXPECT_EQ(r.out, "");
    }
    ASSERT_EQ(sim(host, "rmmod neuron").exit_code, 0);  // debugfs goes with the module: the switch is off again
    ASSERT_EQ(sim(host, "modprobe neuron").exit_code, 0);
    expect_report(sim(host, "run " + program));
}

TEST(RunBusy, AProgramIsRefusedWhileTheModuleIsUnloaded) {
    test::PreparedHost host("trn1.2xlarge");
    const std::string program = one_core_program();
    expect_report(sim(host, "run " + program));  // a host never brought up has nothing to refuse
    ASSERT_EQ(sim(host, "modprobe neuron").exit_code, 0);
    ASSERT_EQ(sim(host, "rmmod neuron").exit_code, 0);
    const auto r = sim(host, "run " + program);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim: NRT:nrt_init Unable to determine Neuron Driver version. Please check aws-neuron-dkms package "
                     "is installed. (the simulated host's neuron module is not loaded; load it with: neuron-sim --instance "
                     "trn1.2xlarge modprobe neuron)\n");
    EXPECT_EQ(r.out, "");
    ASSERT_EQ(sim(host, "modprobe neuron").exit_code, 0);
    expect_report(sim(host, "run " + program));
}

}  // namespace
}  // namespace nsim
