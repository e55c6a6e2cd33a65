// neuron-ls against the real tool's formats (../shared/reference/tools.md 1.1-1.8): the default view of
// SDK 2.25+ (core ids, long BDF, CPU affinity, NUMA node), the process view of --wide / -a (the
// earlier column set), JSON on single- and multi-device instances, the header lines, one-line errors.
#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "prepared_host.h"

namespace nsim {
namespace {

std::string ls() { return test::tool_path("neuron-ls"); }

// Everything after the instance-type / instance-id lines (and the LNC line when `skip` says so).
std::string table_of(const std::string& out, int skip = 2) {
    size_t at = 0;
    for (int i = 0; i < skip; ++i) at = out.find('\n', at) + 1;
    return out.substr(at);
}

TEST(NeuronLs, DefaultViewOfASingleDeviceMatchesTheRealCapture) {
    test::PreparedHost host("trn1.2xlarge");
    auto p = host.start_process("python3 train.py");
    p.cores = {{0, 0}};
    host.write(p);
    const auto r = test::run_command(ls() + " --instance trn1.2xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // tools.md 1.7, trn1.2xlarge (SDK 2.25+, real): no CONNECTED DEVICES on a single device, no processes.
    EXPECT_EQ(table_of(r.out),
              "+--------+--------+----------+--------+--------------+----------+------+\n"
              "| NEURON | NEURON |  NEURON  | NEURON |     PCI      |   CPU    | NUMA |\n"
              "| DEVICE | CORES  | CORE IDS | MEMORY |     BDF      | AFFINITY | NODE |\n"
              "+--------+--------+----------+--------+--------------+----------+------+\n"
              "| 0      | 2      | 0-1      | 32 GB  | 0000:00:1e.0 | 0-7      | -1   |\n"
              "+--------+--------+----------+--------+--------------+----------+------+\n");
    EXPECT_EQ(r.out.rfind("instance-type: trn1.2xlarge\ninstance-id: i-", 0), 0u) << r.out;
}

TEST(NeuronLs, DefaultViewOfAMultiDeviceInstanceMatchesTheRealCapture) {
    test::PreparedHost host("inf2.24xlarge");
    const auto r = test::run_command(ls() + " --instance inf2.24xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // tools.md 1.7, inf2.24xlarge (real capture): a chain, two NUMA nodes.
    EXPECT_EQ(table_of(r.out),
              "+--------+--------+----------+--------+-----------+--------------+-------------+------+\n"
              "| NEURON | NEURON |  NEURON  | NEURON | CONNECTED |     PCI      |     CPU     | NUMA |\n"
              "| DEVICE | CORES  | CORE IDS | MEMORY |  DEVICES  |     BDF      |  AFFINITY   | NODE |\n"
              "+--------+--------+----------+--------+-----------+--------------+-------------+------+\n"
              "| 0      | 2      | 0-1      | 32 GB  | 1         | 0000:20:1e.0 | 24-47,72-95 | 1    |\n"
              "| 1      | 2      | 2-3      | 32 GB  | 0, 2      | 0000:20:1f.0 | 24-47,72-95 | 1    |\n"
              "| 2      | 2      | 4-5      | 32 GB  | 1, 3      | 0000:10:1e.0 | 0-23,48-71  | 0    |\n"
              "| 3      | 2      | 6-7      | 32 GB  | 2, 4      | 0000:10:1f.0 | 0-23,48-71  | 0    |\n"
              "| 4      | 2      | 8-9      | 32 GB  | 3, 5      | 0000:10:1d.0 | 0-23,48-71  | 0    |\n"
              "| 5      | 2      | 10-11    | 32 GB  | 4         | 0000:20:1d.0 | 24-47,72-95 | 1    |\n"
              "+--------+--------+----------+--------+-----------+--------------+-------------+------+\n");
}

TEST(NeuronLs, WideViewWithoutProcessesIsTheEarlierTable) {
    test::PreparedHost host("inf1.xlarge");
    const auto r = test::run_command(ls() + " --instance inf1.xlarge --wide", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // tools.md 1.6, inf1.xlarge (real capture of the earlier column set): short BDF, no process columns.
    EXPECT_EQ(table_of(r.out),
              "+--------+--------+--------+---------+\n"
              "| NEURON | NEURON | NEURON |   PCI   |\n"
              "| DEVICE | CORES  | MEMORY |   BDF   |\n"
              "+--------+--------+--------+---------+\n"
              "| 0      | 4      | 8 GB   | 00:1f.0 |\n"
              "+--------+--------+--------+---------+\n");
}

TEST(NeuronLs, InstanceIdLooksRealAndIsStable) {
    test::PreparedHost host("trn1.2xlarge");
    const auto first = test::run_command(ls() + " --instance trn1.2xlarge", host.env());
    const auto second = test::run_command(ls() + " --instance trn1.2xlarge", host.env());
    std::smatch id;
    ASSERT_TRUE(std::regex_search(first.out, id, std::regex("instance-id: (i-[0-9a-f]{17})\n"))) << first.out;
    EXPECT_NE(second.out.find(id[1].str()), std::string::npos);
}

TEST(NeuronLs, WideViewOfAMultiDeviceInstanceMatchesTheRealTrn1Capture) {
    test::PreparedHost host("trn1.32xlarge");
    const auto r = test::run_command(ls() + " --instance trn1.32xlarge -w", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // tools.md 1.3 (real BDFs and links, nrt-developer-guide): the earlier column set, no process.
    EXPECT_EQ(table_of(r.out),
              "+--------+--------+--------+---------------+---------+\n"
              "| NEURON | NEURON | NEURON |   CONNECTED   |   PCI   |\n"
              "| DEVICE | CORES  | MEMORY |    DEVICES    |   BDF   |\n"
              "+--------+--------+--------+---------------+---------+\n"
              "| 0      | 2      | 32 GB  | 12, 3, 4, 1   | 10:1c.0 |\n"
              "| 1      | 2      | 32 GB  | 13, 0, 5, 2   | 10:1d.0 |\n"
              "| 2      | 2      | 32 GB  | 14, 1, 6, 3   | a0:1c.0 |\n"
              "| 3      | 2      | 32 GB  | 15, 2, 7, 0   | a0:1d.0 |\n"
              "| 4      | 2      | 32 GB  | 0, 7, 8, 5    | 20:1b.0 |\n"
              "| 5      | 2      | 32 GB  | 1, 4, 9, 6    | 20:1c.0 |\n"
              "| 6      | 2      | 32 GB  | 2, 5, 10, 7   | 90:1b.0 |\n"
              "| 7      | 2      | 32 GB  | 3, 6, 11, 4   | 90:1c.0 |\n"
              "| 8      | 2      | 32 GB  | 4, 11, 12, 9  | 20:1d.0 |\n"
              "| 9      | 2      | 32 GB  | 5, 8, 13, 10  | 20:1e.0 |\n"
              "| 10     | 2      | 32 GB  | 6, 9, 14, 11  | 90:1d.0 |\n"
              "| 11     | 2      | 32 GB  | 7, 10, 15, 8  | 90:1e.0 |\n"
              "| 12     | 2      | 32 GB  | 8, 15, 0, 13  | 10:1e.0 |\n"
              "| 13     | 2      | 32 GB  | 9, 12, 1, 14  | 10:1b.0 |\n"
              "| 14     | 2      | 32 GB  | 10, 13, 2, 15 | a0:1e.0 |\n"
              "| 15     | 2      | 32 GB  | 11, 14, 3, 12 | a0:1b.0 |\n"
              "+--------+--------+--------+---------------+---------+\n");
}

TEST(NeuronLs, LogicalCoreInstanceMatchesTheDocExample) {
    test::PreparedHost host("trn2.48xlarge");
    const auto r = test::run_command(ls() + " --instance trn2.48xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // tools.md 1.8, the doc's default view (trn2n.48xlarge, the chassis trn2.48xlarge's config takes):
    // LNC=2 gives 4 logical cores of 8, numbered across the instance.
    EXPECT_NE(r.out.find("\nlogical-neuroncore-config: 2\n"), std::string::npos) << r.out;
    EXPECT_EQ(table_of(r.out, 3),
              "+--------+--------+----------+--------+---------------+--------------+---------------+------+\n"
              "| NEURON | NEURON |  NEURON  | NEURON |   CONNECTED   |     PCI      |      CPU      | NUMA |\n"
              "| DEVICE | CORES  | CORE IDS | MEMORY |    DEVICES    |     BDF      |   AFFINITY    | NODE |\n"
              "+--------+--------+----------+--------+---------------+--------------+---------------+------+\n"
              "| 0      | 4      | 0-3      | 96 GB  | 12, 3, 4, 1   | 0000:cc:00.0 | 48-95,144-191 | 1    |\n"
              "| 1      | 4      | 4-7      | 96 GB  | 13, 0, 5, 2   | 0000:b5:00.0 | 48-95,144-191 | 1    |\n"
              "| 2      | 4      | 8-11     | 96 GB  | 14, 1, 6, 3   | 0000:b6:00.0 | 48-95,144-191 | 1    |\n"
              "| 3      | 4      | 12-15    | 96 GB  | 15, 2, 7, 0   | 0000:cb:00.0 | 48-95,144-191 | 1    |\n"
              "| 4      | 4      | 16-19    | 96 GB  | 0, 7, 8, 5    | 0000:6f:00.0 | 0-47,96-143   | 0    |\n"
              "| 5      | 4      | 20-23    | 96 GB  | 1, 4, 9, 6    | 0000:58:00.0 | 0-47,96-143   | 0    |\n"
              "| 6      | 4      | 24-27    | 96 GB  | 2, 5, 10, 7   | 0000:59:00.0 | 0-47,96-143   | 0    |\n"
              "| 7      | 4      | 28-31    | 96 GB  | 3, 6, 11, 4   | 0000:6e:00.0 | 0-47,96-143   | 0    |\n"
              "| 8      | 4      | 32-35    | 96 GB  | 4, 11, 12, 9  | 0000:9b:00.0 | 0-47,96-143   | 0    |\n"
              "| 9      | 4      | 36-39    | 96 GB  | 5, 8, 13, 10  | 0000:84:00.0 | 0-47,96-143   | 0    |\n"
              "| 10     | 4      | 40-43    | 96 GB  | 6, 9, 14, 11  | 0000:85:00.0 | 0-47,96-143   | 0    |\n"
              "| 11     | 4      | 44-47    | 96 GB  | 7, 10, 15, 8  | 0000:9a:00.0 | 0-47,96-143   | 0    |\n"
              "| 12     | 4      | 48-51    | 96 GB  | 8, 15, 0, 13  | 0000:f8:00.0 | 48-95,144-191 | 1    |\n"
              "| 13     | 4      | 52-55    | 96 GB  | 9, 12, 1, 14  | 0000:e1:00.0 | 48-95,144-191 | 1    |\n"
              "| 14     | 4      | 56-59    | 96 GB  | 10, 13, 2, 15 | 0000:e2:00.0 | 48-95,144-191 | 1    |\n"
              "| 15     | 4      | 60-63    | 96 GB  | 11, 14, 3, 12 | 0000:f7:00.0 | 48-95,144-191 | 1    |\n"
              "+--------+--------+----------+--------+---------------+--------------+---------------+------+\n");
    // The process view keeps the earlier column set with the short BDF (tools.md 1.8 --wide).
    const auto wide = test::run_command(ls() + " --instance trn2.48xlarge --wide", host.env());
    EXPECT_NE(wide.out.find("| 0      | 4      | 96 GB  | 12, 3, 4, 1   | cc:00.0 |\n"), std::string::npos) << wide.out;
}

TEST(NeuronLs, DefaultViewListsNoProcesses) {
    test::PreparedHost host("inf2.xlarge");
    auto p = host.start_process("python3 infer.py");
    p.cores = {{0, 1}};
    host.write(p);
    const auto r = test::run_command(ls() + " --instance inf2.xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("PID"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(std::to_string(p.pid)), std::string::npos) << r.out;
    // The process view lists it (the JSON too: JsonOfAMultiDeviceLncInstance).
    const auto wide = test::run_command(ls() + " --instance inf2.xlarge --wide", host.env());
    EXPECT_NE(wide.out.find(fmt::format("| {} ", p.pid)), std::string::npos) << wide.out;
}

// A PID column as wide as the widest pid, "PID" centred with the odd space on the right.
std::string pid_header(size_t width) {
    const size_t left = (width - 3) / 2;
    return std::string(left, ' ') + "PID" + std::string(width - 3 - left, ' ');
}

TEST(NeuronLs, ProcessRowsPerDeviceWithRulesBetweenDevices) {
    test::PreparedHost host("inf1.6xlarge");
    auto a = host.start_process("neuron-app01 infer --input-data-directory ~/my_input_data --inference-count 5");
    a.cores = {{0, 0}, {1, 2}};
    host.write(a);
    auto b = host.start_process("neuron-app02 infer --input-data-directory ~/my_input_data --inference-count 5");
    b.open_devices = {0, 2};
    host.write(b);
    // The process view of runtimes only; -a would add this neuron-ls.
    const auto r = test::run_command(ls() + " --instance inf1.6xlarge --wide", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;

    const size_t w = std::max({size_t(3), std::to_string(a.pid).size(), std::to_string(b.pid).size()});
    const std::string rule = "+--------+--------+--------+-----------+---------+" + std::string(w + 2, '-') +
                             "+-------------------------------------------------------------------------------+---------+\n";
    auto pid = [&](int p) { return fmt::format("{:<{}}", p, w); };
    // The layout of tools.md 1.1 --wide (a device with two processes makes every device a group),
    // with the short BDF; the commands fit in 80 characters; the simulated runtime does not publish
    // a version (NA).
    const std::string expected =
        rule +
        "| NEURON | NEURON | NEURON | CONNECTED |   PCI   | " + pid_header(w) + " |                                    COMMAND                                    | RUNTIME |\n" +
        "| DEVICE | CORES  | MEMORY |  DEVICES  |   BDF   | " + std::string(w, ' ') + " |                                                                               | VERSION |\n" +
        rule +
        "| 0      | 4      | 8 GB   | 1         | 00:1c.0 | " + pid(a.pid) + " | neuron-app01 infer --input-data-directory ~/my_input_data --inference-count 5 | NA      |\n" +
        "|        |        |        |           |         | " + pid(b.pid) + " | neuron-app02 infer --input-data-directory ~/my_input_data --inference-count 5 | NA      |\n" +
        rule +
        "| 1      | 4      | 8 GB   | 2, 0      | 00:1d.0 | " + pid(a.pid) + " | neuron-app01 infer --input-data-directory ~/my_input_data --inference-count 5 | NA      |\n" +
        rule +
        "| 2      | 4      | 8 GB   | 3, 1      | 00:1e.0 | " + pid(b.pid) + " | neuron-app02 infer --input-data-directory ~/my_input_data --inference-count 5 | NA      |\n" +
        rule +
        "| 3      | 4      | 8 GB   | 2         | 00:1f.0 | " + fmt::format("{:<{}}", "NA", w) + " | NA                                                                            | NA      |\n" +
        rule;
    EXPECT_EQ(table_of(r.out), expected);
}

TEST(NeuronLs, OneProcessPerDeviceHasNoRulesBetweenDevices) {
    test::PreparedHost host("inf2.24xlarge");
    auto p = host.start_process("python3 train.py");
    p.open_devices = {0, 1, 2, 3, 4, 5};
    host.write(p);
    const auto r = test::run_command(ls() + " --instance inf2.24xlarge --wide", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // tools.md 1.4: one process on every device, rows follow each other without rules.
    const std::string table = table_of(r.out);
    EXPECT_EQ(test::count_lines(table), 4 + 6 + 1) << table;
    EXPECT_NE(table.find(fmt::format("| 5      | 2      | 32 GB  | 4         | 20:1d.0 | {} | python3 train.py | NA      |",
                                     fmt::format("{:<{}}", p.pid, std::max<size_t>(3, std::to_string(p.pid).size())))),
              std::string::npos)
        << table;
}

TEST(NeuronLs, CommandIsCutAt40AndWideAt80) {
    test::PreparedHost host("inf2.xlarge");
    const std::string command = "python3 -m torch_neuronx.distributed.run --nproc 2 --model bert-large --batch 16 --seq 128 --steps 100000";
    auto p = host.start_process(command);
    p.cores = {{0, 0}};
    host.write(p);
    // -a alone is the process view with commands cut at 40 (tools.md 1.1 --show-all-procs).
    const auto narrow = test::run_command(ls() + " --instance inf2.xlarge -a", host.env());
    EXPECT_NE(narrow.out.find("| " + command.substr(0, 37) + "... |"), std::string::npos) << narrow.out;
    const auto wide = test::run_command(ls() + " --instance inf2.xlarge --wide", host.env());
    EXPECT_NE(wide.out.find("| " + command.substr(0, 77) + "... |"), std::string::npos) << wide.out;
    const auto short_flag = test::run_command(ls() + " --instance inf2.xlarge -w", host.env());
    EXPECT_EQ(short_flag.out, wide.out);
}

TEST(NeuronLs, ShowAllProcsListsNeuronLsItself) {
    test::PreparedHost host("inf1.xlarge");
    // --wide so that the command (its path depends on where the build is) is cut late, if at all.
    const auto r = test::run_command(ls() + " --instance inf1.xlarge --show-all-procs --wide", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\| 0 +\| 4 +\| 8 GB +\| 00:1f\.0 \| \d+ +\| \S*neuron-ls --[^|]* +\| NA +\|)")))
        << r.out;
}

TEST(NeuronLs, JsonOfAMultiDeviceLncInstance) {
    test::PreparedHost host("trn2.48xlarge");
    auto p = host.start_process("neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64");
    p.cores = {{0, 0}, {0, 1}};
    host.write(p);
    const auto r = test::run_command(ls() + " --instance trn2.48xlarge --json-output", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 16u);
    // Field names, order and values of tools.md 1.8's JSON.
    const auto in_order = nlohmann::ordered_json::parse(r.out);
    std::vector<std::string> keys;
    for (const auto& item : in_order[0].items()) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"neuron_device", "bdf", "cpu_affinity", "numa_node", "connected_to", "nc_count",
                                              "logical_neuroncore_config", "memory_size", "neuroncore_ids", "neuron_processes"}));
    EXPECT_EQ(j[0]["neuron_device"], 0);
    EXPECT_EQ(j[0]["bdf"], "cc:00.0");
    EXPECT_EQ(j[0]["cpu_affinity"], "48-95,144-191");
    EXPECT_EQ(j[0]["numa_node"], "1");
    EXPECT_EQ(j[4]["cpu_affinity"], "0-47,96-143");
    EXPECT_EQ(j[4]["numa_node"], "0");
    EXPECT_EQ(j[0]["connected_to"], nlohmann::json({12, 3, 4, 1}));
    EXPECT_EQ(j[0]["nc_count"], 4);
    EXPECT_EQ(j[0]["logical_neuroncore_config"], 2);
    EXPECT_EQ(j[0]["memory_size"], 103079215104ull);
    EXPECT_EQ(j[0]["neuroncore_ids"], nlohmann::json({0, 1, 2, 3}));
    ASSERT_EQ(j[0]["neuron_processes"].size(), 1u);
    EXPECT_EQ(j[0]["neuron_processes"][0]["pid"], p.pid);
    EXPECT_EQ(j[0]["neuron_processes"][0]["command"], "neuron-bench exec --run-as-cc-neff --...");
    EXPECT_EQ(j[0]["neuron_processes"][0]["neuron_runtime_version"], "NA");
    EXPECT_EQ(j[15]["bdf"], "f7:00.0");
    EXPECT_EQ(j[15]["neuroncore_ids"], nlohmann::json({60, 61, 62, 63}));
    EXPECT_TRUE(j[15]["neuron_processes"].empty());
    const auto short_flag = test::run_command(ls() + " --instance trn2.48xlarge -j", host.env());
    EXPECT_EQ(short_flag.out, r.out);
}

TEST(NeuronLs, JsonOfASingleDeviceInstance) {
    test::PreparedHost host("inf2.xlarge");
    const auto r = test::run_command(ls() + " -j --instance inf2.xlarge", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["nc_count"], 2);
    EXPECT_EQ(j[0]["cpu_affinity"], "0-3");
    EXPECT_EQ(j[0]["numa_node"], "-1");
    EXPECT_EQ(j[0]["memory_size"], 32ull << 30);
    EXPECT_TRUE(j[0]["connected_to"].empty());
    EXPECT_FALSE(j[0].contains("logical_neuroncore_config"));
    EXPECT_TRUE(j[0]["neuron_processes"].empty());
}

TEST(NeuronLs, DriverUnloadedSaysNoDeviceIsFound) {
    test::PreparedHost host("trn1.2xlarge");
    host.write_machine(false);
    for (const std::string flags : {"", " -j"}) {
        const auto r = test::run_command(ls() + " --instance trn1.2xlarge" + flags, host.env());
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("No Neuron devices found"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("modprobe"), std::string::npos) << r.err;
    }
    host.write_machine(true);
    EXPECT_EQ(test::run_command(ls() + " --instance trn1.2xlarge", host.env()).exit_code, 0);
}

TEST(NeuronLs, DeadProcessesAreNotListed) {
    test::PreparedHost host("inf1.xlarge");
    auto p = host.finished_process("gone");
    p.cores = {{0, 0}};
    host.write(p);
    const auto r = test::run_command(ls() + " --instance inf1.xlarge --wide", host.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("PID"), std::string::npos) << r.out;
}

TEST(NeuronLs, TakesTheOnlyHostInTheStateOrTheEnvironment) {
    test::PreparedHost host("inf2.8xlarge");
    const auto only = test::run_command(ls(), host.env());
    ASSERT_EQ(only.exit_code, 0) << only.err;
    EXPECT_EQ(only.out.rfind("instance-type: inf2.8xlarge\n", 0), 0u) << only.out;
    const auto from_env = test::run_command(ls(), host.env() + " NEURON_SIM_INSTANCE=inf1.xlarge");
    EXPECT_EQ(from_env.out.rfind("instance-type: inf1.xlarge\n", 0), 0u) << from_env.out;
}

TEST(NeuronLs, SeveralHostsNeedAChoice) {
    test::PreparedHost host("inf2.8xlarge");
    driver::HostState other(host.home(), "trn1.2xlarge");
    const auto r = test::run_command(ls(), host.env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("inf2.8xlarge, trn1.2xlarge"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--instance"), std::string::npos) << r.err;
    // The one with a process running on it is the one meant.
    auto p = host.start_process("app");
    p.cores = {{0, 0}};
    other.write_process(p);
    const auto busy = test::run_command(ls(), host.env());
    EXPECT_EQ(busy.out.rfind("instance-type: trn1.2xlarge\n", 0), 0u) << busy.out << busy.err;
}

TEST(NeuronLs, NoHostYetListsTheInstances) {
    const std::string home = testing::TempDir() + "nsim-tools-empty-home";
    const auto r = test::run_command(ls(), "NEURON_SIM_HOME=" + home);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--instance"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("trn1.32xlarge"), std::string::npos) << r.err;
}

TEST(NeuronLs, UnknownInstanceIsOneLine) {
    test::PreparedHost host("inf1.xlarge");
    const auto r = test::run_command(ls() + " --instance inf9.huge", host.env());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("inf9.huge"), std::string::npos) << r.err;
}

TEST(NeuronLs, DriverPublishedAddressIsShownLongAndShort) {
    test::PreparedHost host("inf1.xlarge");
    driver::MachineRecord machine;
    machine.instance = "inf1.xlarge";
    machine.driver_loaded = true;
    driver::DeviceRecord device;
    device.bdf = "0000:00:1e.0";
    machine.devices.push_back(device);
    host.state().write_machine(machine);
    const auto r = test::run_command(ls() + " --instance inf1.xlarge", host.env());
    EXPECT_NE(r.out.find("| 0      | 4      | 0-3      | 8 GB   | 0000:00:1e.0 | 0-3      | -1   |"), std::string::npos) << r.out;
    const auto wide = test::run_command(ls() + " --instance inf1.xlarge --wide", host.env());
    EXPECT_NE(wide.out.find("| 0      | 4      | 8 GB   | 00:1e.0 |"), std::string::npos) << wide.out;
}

}  // namespace
}  // namespace nsim
