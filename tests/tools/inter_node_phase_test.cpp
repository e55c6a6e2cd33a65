// The inter-node phase hook (library/inter_node_phase.h) with data, as a functional multi-node run
// uses it: three nodes in one process and the same three over two MPI ranks (one node and two) give
// the same end time and the same bytes, and every node's result is the sum of every node's buffer
// (bf16, against a double-precision reference) at the time the last node arrived plus the EFA phase.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "common/command_runner.h"

namespace nsim {
namespace {

float probe_value(uint32_t node, uint32_t rank, uint32_t j) { return 0.37f * float(node + 1) + 0.11f * float(rank) - 0.013f * float(j); }

std::string probe(const std::string& arguments) { return std::string(NSIM_PROBE) + " " + arguments; }

TEST(InterNodePhase, ThreeNodesOverTwoMpiRanksGiveWhatOneProcessGives) {
    const auto alone = test::run_command(probe("3 4 6"));
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    const auto spread = test::run_command(std::string(NSIM_MPIEXEC) + " --oversubscribe -np 2 " + probe("3 4 6"),
                                          "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    ASSERT_EQ(spread.exit_code, 0) << spread.err;
    EXPECT_EQ(spread.out, alone.out);

    std::istringstream lines(alone.out);
    std::string word;
    uint32_t node = 0, rank = 0, rows = 0;
    std::map<uint32_t, unsigned long long> end;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream in(line);
        in >> word >> node >> word;
        if (word == "end_ps") {
            in >> end[node];
            continue;
        }
        in >> rank;
        for (uint32_t j = 0; j < 6; ++j) {
            double got = 0, reference = 0;
            in >> got;
            for (uint32_t k = 0; k < 3; ++k) {
                // Each node's buffer holds its value rounded to bf16 (8 significant bits).
                const double v = probe_value(k, rank, j);
                const int exponent = int(std::floor(std::log2(std::fabs(v))));
                reference += std::round(v * std::ldexp(1.0, 7 - exponent)) * std::ldexp(1.0, exponent - 7);
            }
            EXPECT_NEAR(got, reference, std::fabs(reference) * std::ldexp(1.0, -8) + 1e-6) << line;
        }
        ++rows;
    }
    EXPECT_EQ(rows, 3u * 4u);
    ASSERT_EQ(end.size(), 3u);
    // Every node leaves the phase together, after the last (node 2, at 1000000 + 2 x 7919 ps) arrived.
    EXPECT_EQ(end[0], end[1]);
    EXPECT_EQ(end[1], end[2]);
    EXPECT_GT(end[0], 1000000ull + 2 * 7919);
}

}  // namespace
}  // namespace nsim
