// `neuron-sim nccom-test` as a user runs it on a simulated trn1.32xlarge: nccom-test's table, bus
// bandwidths that obey the mechanisms moving the data (rising with size, bounded by the DMA engines
// that carry the rings and by the links), and one-line errors for rank sets the runtime refuses, bad
// sizes and bad data types. Across nodes (issue 17): the hierarchical collective over EFA, the same
// table from one process and from the nodes spread over MPI ranks, one-line errors for bad node counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../core/cli_test_support.h"
#include "common/command_runner.h"
#include "config/config_set.h"

namespace nsim {
namespace {

struct Row {
    uint64_t size = 0, count = 0;
    std::string type;
    double time_us = 0, algbw = 0, busbw = 0;
};

struct Table {
    std::string header;
    std::vector<Row> rows;
    double average_busbw = -1;
};

Table parse_table(const std::string& out) {
    Table table;
    std::istringstream lines(out);
    std::string line;
    std::getline(lines, table.header);
    while (std::getline(lines, line)) {
        const std::string average = "Avg bus bandwidth:";
        if (line.rfind(average, 0) == 0) {
            table.average_busbw = std::stod(line.substr(average.size()));
            continue;
        }
        Row row;
        std::istringstream fields(line);
        fields >> row.size >> row.count >> row.type >> row.time_us >> row.algbw >> row.busbw;
        EXPECT_FALSE(fields.fail()) << line;
        table.rows.push_back(row);
    }
    return table;
}

std::string nccom(const std::string& instance, const std::string& arguments) {
    return test::tool_path("neuron-sim") + " --instance " + instance + " nccom-test " + arguments;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(NccomTest, AllReduceOnThirtyTwoRanksRisesToTheBoundOfItsDmaEngines) {
    const auto r = test::run_command(nccom("trn1.32xlarge", "all_reduce -r 32 -b 64K -e 256M -f 16 -d fp32 -n 2 -w 1"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Table table = parse_table(r.out);
    for (const char* column : {"size(B)", "count(elems)", "type", "time:avg(us)", "algbw(GB/s)", "busbw(GB/s)"})
        EXPECT_NE(table.header.find(column), std::string::npos) << column;
    ASSERT_EQ(table.rows.size(), 4u) << r.out;   // 64K, 1M, 16M, 256M
    double sum = 0;
    for (size_t i = 0; i < table.rows.size(); ++i) {
        const Row& row = table.rows[i];
        EXPECT_EQ(row.size, (uint64_t(64) << 10) << (4 * i));
        EXPECT_EQ(row.count, row.size / 4);
        EXPECT_EQ(row.type, "fp32");
        EXPECT_GT(row.time_us, 0.0);
        // nccom-test's definitions: algbw = size / time in GiB/s, busbw = algbw x 2(r-1)/r.
        EXPECT_NEAR(row.algbw, double(row.size) / (row.time_us * 1e-6) / kGiB, 0.01 + 1e-3 * row.algbw);
        EXPECT_NEAR(row.busbw, row.algbw * 2 * 31 / 32, 0.02);
        if (i > 0) EXPECT_GT(row.busbw, table.rows[i - 1].busbw) << "busbw falls from " << table.rows[i - 1].size;
        sum += row.busbw;
    }
    EXPECT_NEAR(table.average_busbw, sum / table.rows.size(), 0.01);
    // The ring's bytes leave each rank on its collective_rings DMA engines and cross its NeuronLinks:
    // the bus bandwidth stays under both, and a large buffer comes within a factor 2 of the tighter.
    const config::HostSpec spec = config::ConfigSet::load(NSIM_CONFIG_DIR).host("trn1.32xlarge");
    const double dma_bound = spec.chip.link.collective_rings * spec.chip.core.dma_engine_bytes_per_s / kGiB;
    const double link_bound = spec.chip.link.ports * spec.chip.link.bytes_per_s / kGiB;
    const double bound = std::min(dma_bound, link_bound);
    const double largest = table.rows.back().busbw;
    EXPECT_LE(largest, bound);
    EXPECT_GE(largest, 0.5 * bound);
}

TEST(NccomTest, GatherAndScatterUseTheirBusFactor) {
    for (const char* op : {"all_gather", "reduce_scatter"}) {
        SCOPED_TRACE(op);
        const auto r = test::run_command(nccom("trn1.32xlarge", std::string(op) + " -r 8 -b 4M -e 4M -d bf16 -n 1 -w 0"));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const Table table = parse_table(r.out);
        ASSERT_EQ(table.rows.size(), 1u) << r.out;
        EXPECT_EQ(table.rows[0].count, (uint64_t(4) << 20) / 2);
        EXPECT_EQ(table.rows[0].type, "bf16");
        EXPECT_NEAR(table.rows[0].busbw, table.rows[0].algbw * 7 / 8, 0.02);
    }
}

// 16 ranks run on NeuronCores 16-31 as on 0-15, but not from NeuronCore 8 (training.md A1.1).
TEST(NccomTest, SixteenRanksRunOnTheSecondHalfButNotFromTheMiddle) {
    const auto ok = test::run_command("NEURON_RT_VISIBLE_CORES=16-31 " + nccom("trn1.32xlarge", "all_reduce -r 16 -b 1K -e 1K -n 1 -w 0"));
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_EQ(parse_table(ok.out).rows.size(), 1u);
    const auto refused = test::run_command("NEURON_RT_VISIBLE_CORES=8-31 " + nccom("trn1.32xlarge", "all_reduce -r 16 -b 1K -e 1K -n 1 -w 0"));
    test::expect_one_line_error(refused, "a group of 16 ranks must start at a NeuronCore that is a multiple of 16");
}

TEST(NccomTest, RankCountsTheRuntimeDoesNotRunAreOneLine) {
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 4 -b 1K -e 1K")),
                                "trn1.32xlarge runs collectives on 2, 8, 16 or 32 ranks");
    // More ranks than the instance has cores: the hint names -N, nccom-test's way to more instances.
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_gather -r 64 -b 1K -e 1K")),
                                "nccom-test: -r 64 ranks; a trn1.32xlarge has 32 NeuronCores (more ranks than one instance "
                                "has: add -N 2 to spread them over 2 instances)");
    test::expect_one_line_error(test::run_command(nccom("trn1.2xlarge", "all_reduce -r 4 -b 1K -e 1K")),
                                "(more ranks than one instance has: -N spreads them over instances joined by EFA, which a "
                                "trn1.2xlarge has not)");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 1 -b 1K -e 1K")),
                                "a collective needs at least 2 ranks");
}

TEST(NccomTest, BadSizesAreOneLine) {
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 6 -e 6 -d fp32")),
                                "-b 6 B is not a whole number of fp32 elements");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 2M -e 1M")),
                                "-b 2097152 B is larger than -e 1048576 B");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 12Q -e 1M")),
                                "-b '12Q' is not a size");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 0 -e 1M")),
                                "-b must be at least one element");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 1K -e 1M -f 1")),
                                "-f must be at least 2");
}

TEST(NccomTest, BadDataTypesAreOneLine) {
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 1K -e 1K -d fp64")),
                                "data type fp64 is not supported by the simulated collectives");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 2 -b 1K -e 1K -d float")),
                                "unknown data type 'float'");
}

// --- across nodes (issue 17) ------------------------------------------------------------------

std::string mpirun(int processes) {
    return std::string(NSIM_MPIEXEC) + " --oversubscribe -np " + std::to_string(processes) + " ";
}
constexpr const char* kMpiEnvironment = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";

size_t occurrences(const std::string& text, const std::string& fragment) {
    size_t count = 0;
    for (size_t at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1)) ++count;
    return count;
}

// Two trn1.32xlarge: the instance's reduce-scatter and all-gather (together the instance's ring
// all-reduce) with the EFA all-reduce of each rank's share between them, which for 16 MiB of fp32
// is 2 steps of 256 KiB per rank, 4 ranks per EFA device: 2 x (15 us + 1 MiB / 12.5 GB/s) = 198 us.
TEST(NccomTestNodes, TwoNodesAddTheEfaAllReduceToTheInstanceCollective) {
    const auto one = test::run_command(nccom("trn1.32xlarge", "all_reduce -r 32 -b 16M -e 16M -d fp32 -n 1 -w 0"));
    const auto two = test::run_command(nccom("trn1.32xlarge", "all_reduce -r 64 -N 2 -b 16M -e 16M -d fp32 -n 1 -w 0"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    ASSERT_EQ(two.exit_code, 0) << two.err;
    const Table alone = parse_table(one.out), joined = parse_table(two.out);
    ASSERT_EQ(joined.rows.size(), 1u) << two.out;
    ASSERT_EQ(alone.rows.size(), 1u) << one.out;
    const double efa_us = 2 * (15 + 4.0 * (256 << 10) / 12.5e9 * 1e6);
    EXPECT_NEAR(joined.rows[0].time_us - alone.rows[0].time_us, efa_us, 0.1 * efa_us) << one.out << two.out;
    EXPECT_NEAR(joined.rows[0].busbw, joined.rows[0].algbw * 2 * 63 / 64, 0.02);   // r = 64 ranks in all
}

// The nodes spread over two MPI ranks (one node each, then two each) give the table one process gives.
TEST(NccomTestNodes, MpiRanksGiveTheTableOfOneProcess) {
    for (const std::string arguments : {"all_reduce -r 16 -N 2 -b 1K -e 8K -f 8 -d bf16 -n 1 -w 1",
                                        "all_gather -r 8 -N 4 -b 4K -e 4K -d fp32 -n 1 -w 0"}) {
        SCOPED_TRACE(arguments);
        const auto alone = test::run_command(nccom("trn1.32xlarge", arguments));
        ASSERT_EQ(alone.exit_code, 0) << alone.err;
        const auto spread = test::run_command(mpirun(2) + nccom("trn1.32xlarge", arguments), kMpiEnvironment);
        ASSERT_EQ(spread.exit_code, 0) << spread.err;
        EXPECT_FALSE(parse_table(alone.out).rows.empty());
        EXPECT_EQ(spread.out, alone.out);
    }
}

TEST(NccomTestNodes, BadNodeCountsAreOneLine) {
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 32 -N 0 -b 1K -e 1K")),
                                "-N 0: a collective runs on at least one node");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 48 -N 5 -b 1K -e 1K")),
                                "-r 48 ranks do not split evenly over -N 5 nodes");
    test::expect_one_line_error(test::run_command(nccom("trn1.2xlarge", "all_reduce -r 4 -N 2 -b 1K -e 1K")),
                                "-N 2: trn1.2xlarge has no EFA to join instances");
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 128 -N 2 -b 1K -e 1K")),
                                "-r 128 over -N 2 nodes is 64 ranks per node; a trn1.32xlarge has 32 NeuronCores");
    // Each node's ranks are a rank set the runtime must accept.
    test::expect_one_line_error(test::run_command(nccom("trn1.32xlarge", "all_reduce -r 8 -N 2 -b 1K -e 1K")),
                                "trn1.32xlarge runs collectives on 2, 8, 16 or 32 ranks");
}

// Under mpirun every rank meets the error; the first rank alone says it, once.
TEST(NccomTestNodes, MoreMpiRanksThanNodesIsOneLine) {
    const auto r = test::run_command(mpirun(3) + nccom("trn1.32xlarge", "all_reduce -r 4 -N 2 -b 1K -e 1K"), kMpiEnvironment);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(occurrences(r.err, "neuron-sim: 2 nodes over 3 MPI ranks: each rank simulates one node or more "
                                 "(mpirun -np 1 to 2)"), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    const auto bad = test::run_command(mpirun(2) + nccom("trn1.32xlarge", "all_reduce -r 8 -N 2 -b 1K -e 1K"), kMpiEnvironment);
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_EQ(occurrences(bad.err, "runs collectives on 2, 8, 16 or 32 ranks"), 1u) << bad.err;
}

}  // namespace
}  // namespace nsim
