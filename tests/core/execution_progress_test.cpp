// ExecutionOptions::progress: during one long execution the engines report how many instructions
// have issued out of the run's total, so a tool can show a progress bar before the run ends.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "engine_test_support.h"

namespace nsim {
namespace {

using sim::core::ExecutionOptions;
using test::EngineRun;

// `per_engine` no-ops on each of ACT and POOL: one issue event per instruction.
isa::Container nops(size_t per_engine) {
    std::string text = ".target v2\n.cores 1\n.core 0\n";
    for (size_t i = 0; i < per_engine; ++i) text += "act nop\npool nop\n";
    return test::assemble_program(text);
}

struct Report {
    uint64_t issued, total;
};

std::vector<Report> reports_of(size_t per_engine, uint32_t iterations) {
    std::vector<Report> reports;
    ExecutionOptions o;
    o.iterations = iterations;
    o.progress = [&](uint64_t issued, uint64_t total) { reports.push_back({issued, total}); };
    EngineRun run("trn1.2xlarge", nops(per_engine), o);
    const auto stats = run.run();
    EXPECT_EQ(stats.instructions, 2 * per_engine * iterations);
    return reports;
}

TEST(ExecutionProgress, OneLongExecutionReportsIssuedInstructionsAsItGoes) {
    constexpr size_t kPerEngine = 2000;  // 4000 instructions: several reports within the one execution
    const std::vector<Report> reports = reports_of(kPerEngine, 1);
    ASSERT_GE(reports.size(), 3u);
    uint64_t previous = 0;
    for (const Report& r : reports) {
        EXPECT_EQ(r.total, 2 * kPerEngine);
        EXPECT_GT(r.issued, previous) << "progress never goes back or stands still between reports";
        EXPECT_LE(r.issued, r.total);
        previous = r.issued;
    }
    EXPECT_LT(reports.front().issued, reports.front().total / 2) << "the first report comes early in the run";
}

TEST(ExecutionProgress, TheTotalCoversEveryIteration) {
    const std::vector<Report> reports = reports_of(1000, 3);
    ASSERT_FALSE(reports.empty());
    for (const Report& r : reports) EXPECT_EQ(r.total, 6000u);
    EXPECT_GT(reports.back().issued, 4000u) << "reports continue into the last iteration";
}

TEST(ExecutionProgress, AShortRunGetsNoReport) {
    EXPECT_TRUE(reports_of(100, 1).empty());
}

}  // namespace
}  // namespace nsim
