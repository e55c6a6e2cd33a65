// The serving queue against hand-worked schedules: closed-loop clients, opportunistic batching up to
// the compiled batch, padding not counted, the batch delay.
#include <gtest/gtest.h>

#include "serving_simulation.h"

namespace {

using nsim::serving::ServingSetup;
using nsim::serving::simulate_serving;

TEST(ServingSimulation, OneClientOneCopyIsSequential) {
    ServingSetup setup;
    setup.max_batch = 4;
    setup.requests_per_client = 5;
    const auto result = simulate_serving(setup, [](uint32_t) { return 0.010; });
    EXPECT_EQ(result.requests, 5u);
    EXPECT_EQ(result.executions, 5u);
    EXPECT_EQ(result.padded_slots, 15u);  // each execution carried one real request
    EXPECT_NEAR(result.makespan_s, 0.050, 1e-12);
    EXPECT_NEAR(result.inferences_per_s, 100.0, 1e-9);
    EXPECT_NEAR(result.latency_percentile_s(50), 0.010, 1e-12);
}

TEST(ServingSimulation, FullBatchesOverCopiesUnderLoad) {
    // 16 clients, 2 copies of batch 4: all 16 wait at t=0, two batches start, two more at 10 ms.
    ServingSetup setup;
    setup.copies = 2;
    setup.max_batch = 4;
    setup.clients = 16;
    setup.requests_per_client = 2;
    std::vector<uint32_t> seen;
    const auto result = simulate_serving(setup, [&](uint32_t real) {
        seen.push_back(real);
        return 0.010;
    });
    EXPECT_EQ(result.requests, 32u);
    EXPECT_EQ(result.executions, 8u);
    EXPECT_EQ(result.padded_slots, 0u);
    for (uint32_t real : seen) EXPECT_EQ(real, 4u);
    EXPECT_NEAR(result.makespan_s, 0.040, 1e-12);
    EXPECT_NEAR(result.inferences_per_s, 800.0, 1e-6);
    // The first 8 requests waited for nothing (10 ms); every later one waited one round of
    // executions behind the 8 queued before it (20 ms).
    EXPECT_NEAR(result.latency_percentile_s(25), 0.010, 1e-12);
    EXPECT_NEAR(result.latency_percentile_s(26), 0.020, 1e-12);
    EXPECT_NEAR(result.latency_percentile_s(100), 0.020, 1e-12);
}

TEST(ServingSimulation, ShortBatchesArePaddedAndPaddingIsNotCounted) {
    // 6 clients, one copy of batch 4: batches alternate 4 real (2 padded next time) then 2 real.
    ServingSetup setup;
    setup.max_batch = 4;
    setup.clients = 6;
    setup.requests_per_client = 1;
    std::vector<uint32_t> seen;
    const auto result = simulate_serving(setup, [&](uint32_t real) {
        seen.push_back(real);
        return 0.005;
    });
    EXPECT_EQ(seen, (std::vector<uint32_t>{4, 2}));
    EXPECT_EQ(result.requests, 6u);
    EXPECT_EQ(result.padded_slots, 2u);
    EXPECT_NEAR(result.inferences_per_s, 6 / 0.010, 1e-6);
}

TEST(ServingSimulation, BatchDelayWaitsForStragglersUpToTheDeadline) {
    // One client, batch 2, 3 ms delay: the batch never fills, so every execution starts when its
    // request has waited 3 ms.
    ServingSetup setup;
    setup.max_batch = 2;
    setup.requests_per_client = 3;
    setup.max_batch_delay_s = 0.003;
    const auto result = simulate_serving(setup, [](uint32_t) { return 0.010; });
    EXPECT_EQ(result.executions, 3u);
    EXPECT_NEAR(result.latency_percentile_s(100), 0.013, 1e-12);
    EXPECT_NEAR(result.makespan_s, 0.039, 1e-12);
}

TEST(ServingSimulation, DeterministicAndPercentilesOrdered) {
    ServingSetup setup;
    setup.copies = 4;
    setup.max_batch = 4;
    setup.clients = 48;
    setup.requests_per_client = 16;
    auto time = [](uint32_t real) { return 0.020 + 0.001 * real; };
    const auto a = simulate_serving(setup, time);
    const auto b = simulate_serving(setup, time);
    EXPECT_EQ(a.latencies_s, b.latencies_s);
    EXPECT_EQ(a.requests, 48u * 16u);
    EXPECT_LE(a.latency_percentile_s(50), a.latency_percentile_s(90));
    EXPECT_LE(a.latency_percentile_s(90), a.latency_percentile_s(99));
    // 48 clients keep 4 copies full: 16 per 24 ms.
    EXPECT_NEAR(a.inferences_per_s, 16 / 0.024, 1.0);
}

TEST(ServingSimulation, RejectsEmptySetups) {
    ServingSetup setup;
    setup.clients = 0;
    EXPECT_THROW(simulate_serving(setup, [](uint32_t) { return 1.0; }), std::invalid_argument);
    setup.clients = 1;
    setup.max_batch_delay_s = -1;
    EXPECT_THROW(simulate_serving(setup, [](uint32_t) { return 1.0; }), std::invalid_argument);
}

}  // namespace
