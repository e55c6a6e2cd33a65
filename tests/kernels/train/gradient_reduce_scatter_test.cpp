// The hierarchical all-reduce's intra-node graphs (train/gradient_all_reduce.h
// gradient_reduce_scatter_all_gather) on the two cores of a trn1.2xlarge, with gradient sums whose
// bucket does not split evenly over the cores: after the "reduce-scatter" graph core i holds the i-th
// half of the bucket's sum over the cores at the bucket's start and the odd element left over is
// summed on both; with each core's shard then changed as the inter-node phase would change it, the
// "all-gather" graph gives every core the shards one after another and keeps the tail.
#include <gtest/gtest.h>

#include "device_run.h"
#include "train/gradient_all_reduce.h"
#include "train/training_program.h"

namespace nsim::kernels {
namespace {

TEST(GradientReduceScatter, ShardsThenGathersABucketWithATail) {
    constexpr uint32_t kCores = 2;
    builder::ProgramBuilder program(testing::core_spec("trn1.2xlarge"), 1);
    // 37 elements (148 bytes), then 5 at the next 64-byte boundary (192 bytes): a bucket of 48 + 5 = 53.
    const std::vector<uint32_t> sums = {
        program.add_tensor("a sum", isa::TensorRole::Scratch, isa::DType::Fp32, {1, 37}),
        program.add_tensor("b sum", isa::TensorRole::Scratch, isa::DType::Fp32, {1, 5})};
    std::vector<std::string> phases;
    const std::vector<train::GradientBucket> buckets =
        train::gradient_reduce_scatter_all_gather(program, sums, kCores, 1 << 20, phases);
    ASSERT_EQ(buckets.size(), 1u);
    ASSERT_EQ(buckets[0].bytes / 4, 53u);
    const train::BucketShards s = train::bucket_shards(53, kCores);
    ASSERT_EQ(s.shard, 26u);
    ASSERT_EQ(s.tail, 1u);
    EXPECT_EQ(phases.size(), 2u);   // each graph ends the all-reduce phase
    testing::DeviceRun run("trn1.2xlarge", train::data_parallel_program(program.finish(), kCores));

    // Core c's bucket (the gap between the sums included): element e holds 100 c + e.
    auto value = [](uint32_t core, uint32_t e) { return float(100 * core + e); };
    const std::string bucket = "gradient bucket 0";
    for (uint32_t c = 0; c < kCores; ++c) {
        std::vector<float> v(53);
        for (uint32_t e = 0; e < 53; ++e) v[e] = value(c, e);
        run.write_core(c, bucket, v);
    }
    run.run(true, train::kReduceScatterGraph);
    for (uint32_t c = 0; c < kCores; ++c) {
        const std::vector<float> got = run.read_core(c, bucket);
        for (uint32_t e = 0; e < s.shard; ++e)
            EXPECT_EQ(got[e], value(0, c * s.shard + e) + value(1, c * s.shard + e)) << "core " << c << " element " << e;
        EXPECT_EQ(got[52], value(0, 52) + value(1, 52)) << "core " << c << ": the tail";
    }
    // What the inter-node phase would write: core c's shard as 1000 c + e.
    for (uint32_t c = 0; c < kCores; ++c) {
        std::vector<float> v = run.read_core(c, bucket);
        for (uint32_t e = 0; e < s.shard; ++e) v[e] = float(1000 * c + e);
        run.write_core(c, bucket, v);
    }
    run.run(true, train::kAllGatherGraph);
    for (uint32_t c = 0; c < kCores; ++c) {
        const std::vector<float> got = run.read_core(c, bucket);
        for (uint32_t r = 0; r < kCores; ++r)
            for (uint32_t e = 0; e < s.shard; ++e)
                EXPECT_EQ(got[r * s.shard + e], float(1000 * r + e)) << "core " << c << " rank " << r << " element " << e;
        EXPECT_EQ(got[52], value(0, 52) + value(1, 52)) << "core " << c << ": the tail";
    }
}

}  // namespace
}  // namespace nsim::kernels
