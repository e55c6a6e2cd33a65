// A live process's claim does not depend on a file another process can damage: with its
// processes/<pid>.json truncated, garbled, emptied to {} or deleted, the cores stay claimed (a
// second process is refused, naming it), rmmod stays refused, and neuron-ls still lists it - until
// it exits. A damaged machine.json (unparsable, or a counter out of range) is one line that says
// modprobe rebuilds it, and modprobe does.
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "cli_test_support.h"
#include "host_state.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

const std::string kClaimInstance = "trn1.2xlarge";

fs::path host_dir(const test::Cli& cli) { return cli.home.path() / "hosts" / kClaimInstance; }

void damage(const fs::path& record, const std::string& how) {
    if (how == "deleted") {
        fs::remove(record);
        return;
    }
    std::ofstream out(record, std::ios::trunc);
    if (how == "truncated") out << "{\"pid\": 12";
    if (how == "garbled") out << "\x01\x02 not json at all";
    if (how == "empty object") out << "{}";
}

class DamagedRecord : public ::testing::TestWithParam<const char*> {};

TEST_P(DamagedRecord, TheClaimHoldsUntilTheProcessExits) {
    test::Cli cli(kClaimInstance);
    test::Child holder = cli.runtime_process(true, true);
    ASSERT_EQ(holder.line(), "ok");
    const fs::path record = host_dir(cli) / "processes" / fmt::format("{}.json", holder.pid());
    ASSERT_TRUE(fs::exists(record));
    damage(record, GetParam());

    test::Child second = cli.runtime_process(false, false);
    const std::string refusal = second.line();
    EXPECT_NE(refusal.find(fmt::format("nc0 is in use by PID {}", holder.pid())), std::string::npos) << refusal;
    EXPECT_NE(refusal.find("holds every NeuronCore until it exits"), std::string::npos) << refusal;

    const test::CommandResult rmmod = cli("rmmod neuron");
    EXPECT_NE(rmmod.exit_code, 0);
    EXPECT_NE(rmmod.err.find("Module neuron is in use"), std::string::npos) << rmmod.err;

    const test::CommandResult listed = test::run_command(test::tool_path("neuron-ls") + " --wide --instance " + kClaimInstance,
                                                         "NEURON_SIM_HOME=" + cli.home.path().string());
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_NE(listed.out.find(std::to_string(holder.pid())), std::string::npos) << listed.out;

    holder.release();
    EXPECT_EQ(holder.wait(), 0);
    test::Child after = cli.runtime_process(false, false);
    EXPECT_EQ(after.line(), "ok");
    EXPECT_FALSE(fs::exists(record));
    EXPECT_EQ(cli("rmmod neuron").exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Kinds, DamagedRecord, ::testing::Values("truncated", "garbled", "empty object", "deleted"),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (c == ' ') c = '_';
                             return name;
                         });

// A damaged record whose pid no longer runs claims nothing and is removed.
TEST(DamagedRecord, OfAProcessThatIsGoneIsStale) {
    test::TempHome home;
    driver::HostState state(home.path(), kClaimInstance);
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    const fs::path record = state.dir() / "processes" / fmt::format("{}.json", child);
    std::ofstream(record) << "{";
    EXPECT_TRUE(state.live_processes().empty());
    EXPECT_FALSE(fs::exists(record));
}

class DamagedMachine : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(DamagedMachine, IsOneLineAndModprobeRebuildsIt) {
    test::Cli cli(kClaimInstance);
    ASSERT_EQ(cli("modprobe neuron").exit_code, 0);
    const fs::path machine = host_dir(cli) / "machine.json";
    std::stringstream text;
    text << std::ifstream(machine).rdbuf();
    std::string edited = text.str();
    const auto [from, to] = GetParam();
    const size_t at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << edited;
    edited.replace(at, std::string(from).size(), to);
    std::ofstream(machine, std::ios::trunc) << edited;

    const test::CommandResult info = test::run_command(test::tool_path("neuron-ls") + " --instance " + kClaimInstance,
                                                       "NEURON_SIM_HOME=" + cli.home.path().string());
    EXPECT_NE(info.exit_code, 0);
    EXPECT_EQ(test::count_lines(info.err), 1) << info.err;
    EXPECT_NE(info.err.find("machine.json is damaged"), std::string::npos) << info.err;
    EXPECT_NE(info.err.find("modprobe neuron' rebuilds it"), std::string::npos) << info.err;

    const test::CommandResult modprobe = cli("modprobe neuron");
    EXPECT_EQ(modprobe.exit_code, 0) << modprobe.err;
    const test::CommandResult again = test::run_command(test::tool_path("neuron-ls") + " --instance " + kClaimInstance,
                                                        "NEURON_SIM_HOME=" + cli.home.path().string());
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_TRUE(fs::exists(host_dir(cli) / "machine.json.damaged"));
}

INSTANTIATE_TEST_SUITE_P(Kinds, DamagedMachine,
                         ::testing::Values(std::make_pair("\"load_count\": 1", "\"load_count\": 1e30"),
                                           std::make_pair("\"load_count\": 1", "\"load_count\": -1"),
                                           std::make_pair("{", "{{")));

TEST(DamagedMachine, IsNotRebuiltUnderALiveProcess) {
    test::Cli cli(kClaimInstance);
    test::Child holder = cli.runtime_process(true, true);
    ASSERT_EQ(holder.line(), "ok");
    std::ofstream(host_dir(cli) / "machine.json", std::ios::trunc) << "{";
    const test::CommandResult modprobe = cli("modprobe neuron");
    EXPECT_NE(modprobe.exit_code, 0);
    EXPECT_NE(modprobe.err.find(fmt::format("not while PID {} uses the host", holder.pid())), std::string::npos)
        << modprobe.err;
    holder.release();
    holder.wait();
}

// The fault switches hold what `neuron-sim fault set` writes; -5 is not that (the CLI refuses -2).
TEST(FaultSwitch, BelowMinusOneIsRefusedNotArmed) {
    test::TempHome home;
    driver::HostState state(home.path(), kClaimInstance);
    fs::create_directories(state.debugfs_dir());
    std::ofstream(state.debugfs_dir() / "fail_dma_wait") << "-5\n";
    try {
        (void)state.read_fault("fail_dma_wait");
        ADD_FAILURE() << "read -5 as a switch value";
    } catch (const driver::HostStateError& e) {
        EXPECT_NE(std::string(e.what()).find("holds -5; it must be -1 (always), 0 (off) or a count"), std::string::npos)
            << e.what();
    }
    std::ofstream(state.debugfs_dir() / "fail_dma_wait", std::ios::trunc) << "3\n";
    EXPECT_EQ(state.read_fault("fail_dma_wait"), 3);
}

TEST(HostHome, ARegularFileIsRefused) {
    const test::TempHome home;
    const fs::path file = home.path() / "not-a-directory";
    std::ofstream(file) << "x";
    for (const std::string tool : {"neuron-ls", "neuron-top"}) {
        const test::CommandResult r = test::run_command(
            test::tool_path(tool) + " --instance " + kClaimInstance + (tool == "neuron-top" ? " --once" : ""),
            "NEURON_SIM_HOME=" + file.string());
        EXPECT_NE(r.exit_code, 0) << tool;
        EXPECT_EQ(r.err, fmt::format("{}: NEURON_SIM_HOME={} is not a directory\n", tool, file.string()));
    }
}

}  // namespace
}  // namespace nsim
