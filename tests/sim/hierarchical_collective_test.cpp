// The hierarchical collective across instances (sim/cluster/hierarchical_collective.h): its phases
// per operation, the EFA numbers of the shipped trn1 instances, the inter-node phase's time from
// them (worked by hand), and what the inter-node phase computes (fp32 sums against a double reference).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "cluster/hierarchical_collective.h"
#include "config/config_set.h"
#include "core/semantics/dtype_conversion.h"

namespace nsim::sim::cluster {
namespace {

const config::ConfigSet& shipped() {
    static const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    return configs;
}

TEST(HierarchicalCollective, Trn1InstancesHaveTheirEfaDevicesAndRates) {
    const config::EfaSpec trn1 = shipped().host("trn1.32xlarge").instance.efa;
    EXPECT_EQ(trn1.devices, 8u);                                   // training.md A1.1
    EXPECT_DOUBLE_EQ(trn1.devices * trn1.bytes_per_s * 8, 800e9);  // 800 Gbps
    EXPECT_DOUBLE_EQ(trn1.latency_s, 15e-6);
    EXPECT_EQ(trn1.collective_algorithm, "hierarchical");
    const config::EfaSpec trn1n = shipped().host("trn1n.32xlarge").instance.efa;
    EXPECT_EQ(trn1n.devices, 16u);
    EXPECT_DOUBLE_EQ(trn1n.devices * trn1n.bytes_per_s * 8, 1600e9);
    EXPECT_EQ(shipped().host("trn1.2xlarge").instance.efa.devices, 0u);   // no EFA
}

TEST(HierarchicalCollective, AllReduceIsReduceScatterThenInterNodeAllReduceThenAllGather) {
    const auto phases = hierarchical_phases(CollectiveKind::AllReduce, 1 << 20, 32, 4);
    ASSERT_EQ(phases.size(), 3u);
    EXPECT_FALSE(phases[0].inter_node);
    EXPECT_EQ(phases[0].kind, CollectiveKind::ReduceScatter);
    EXPECT_EQ(phases[0].elements, 1u << 20);
    EXPECT_TRUE(phases[1].inter_node);
    EXPECT_EQ(phases[1].kind, CollectiveKind::AllReduce);
    EXPECT_EQ(phases[1].elements, (1u << 20) / 32);   // each rank's share after the reduce-scatter
    EXPECT_EQ(phases[2].kind, CollectiveKind::AllGather);
    EXPECT_FALSE(phases[2].inter_node);

    const auto gather = hierarchical_phases(CollectiveKind::AllGather, 1 << 20, 32, 4);
    ASSERT_EQ(gather.size(), 2u);
    EXPECT_TRUE(gather[0].inter_node);                 // across nodes first
    EXPECT_EQ(gather[0].elements, (1u << 20) / 128);   // one rank's block of the output
    const auto scatter = hierarchical_phases(CollectiveKind::ReduceScatter, 1 << 20, 32, 4);
    ASSERT_EQ(scatter.size(), 2u);
    EXPECT_FALSE(scatter[0].inter_node);               // within the node first
    EXPECT_TRUE(scatter[1].inter_node);
    // One node: the instance collective alone; one rank per node: the inter-node phase alone.
    EXPECT_EQ(hierarchical_phases(CollectiveKind::AllReduce, 64, 8, 1).size(), 1u);
    const auto single = hierarchical_phases(CollectiveKind::AllReduce, 64, 1, 2);
    ASSERT_EQ(single.size(), 1u);
    EXPECT_TRUE(single[0].inter_node);
}

TEST(HierarchicalCollective, InterNodeTimeIsRingStepsOverTheBusiestEfaDevice) {
    const config::HostSpec trn1 = shipped().host("trn1.32xlarge");
    // 32 ranks, 2 nodes, each rank's 2 MiB of fp32: 2 steps of 1 MiB. 8 EFA devices on 16 chips:
    // 2 chips x 2 cores = 4 ranks on each EFA -> 4 MiB per step at 12.5 GB/s (the chip's PCIe
    // carries 2 MiB at 26 GB/s, less), plus 15 us per step.
    const CollectivePhase phase{true, CollectiveKind::AllReduce, (2u << 20) / 4};
    const double step_s = 15e-6 + 4.0 * (1 << 20) / 12.5e9;
    EXPECT_NEAR(double(inter_node_phase_ps(trn1, phase, 4, 32, 2)) * 1e-12, 2 * step_s, 1e-11);
    // trn1n: 16 EFA devices, half the ranks on each.
    const double trn1n_step_s = 15e-6 + 2.0 * (1 << 20) / 12.5e9;
    EXPECT_NEAR(double(inter_node_phase_ps(shipped().host("trn1n.32xlarge"), phase, 4, 32, 2)) * 1e-12, 2 * trn1n_step_s, 1e-11);
    // 4 nodes: 6 steps of a quarter each.
    EXPECT_NEAR(double(inter_node_phase_ps(trn1, phase, 4, 32, 4)) * 1e-12, 6 * (15e-6 + 4.0 * (1 << 19) / 12.5e9), 1e-11);
    // 2 ranks: both on chip 0's EFA, and the chip's PCIe (26 GB/s) carries both: the EFA bounds.
    EXPECT_NEAR(double(inter_node_phase_ps(trn1, phase, 4, 2, 2)) * 1e-12, 2 * (15e-6 + 2.0 * (1 << 20) / 12.5e9), 1e-11);
    EXPECT_THROW(inter_node_phase_ps(shipped().host("trn1.2xlarge"), phase, 4, 2, 2), std::invalid_argument);
}

std::vector<uint8_t> bf16_buffer(const std::vector<float>& values) {
    std::vector<uint8_t> bytes(values.size() * 2);
    core::dtype::encode(isa::DType::Bf16, values.data(), bytes.data(), values.size());
    return bytes;
}

std::vector<float> floats_of(const std::vector<uint8_t>& bytes) {
    std::vector<float> values(bytes.size() / 2);
    core::dtype::decode(isa::DType::Bf16, bytes.data(), values.data(), values.size());
    return values;
}

TEST(HierarchicalCollective, InterNodeDataSumsInFp32AndRoundsOnce) {
    // Three nodes whose bf16 values sum exactly in fp32 but not pairwise in bf16: 256 + 1 + 1 = 258
    // (bf16 keeps 8 bits: 257 would round to 256 at each step, the fp32 sum to 258 once).
    const std::vector<std::vector<uint8_t>> buffers = {bf16_buffer({256, 1.5f}), bf16_buffer({1, -0.25f}),
                                                       bf16_buffer({1, 2})};
    const auto reduced = inter_node_data(CollectiveKind::AllReduce, isa::DType::Bf16, buffers);
    ASSERT_EQ(reduced.size(), 3u);
    for (const auto& node : reduced) {
        const std::vector<float> values = floats_of(node);
        EXPECT_EQ(values[0], 258.0f);
        EXPECT_EQ(values[1], 3.25f);
    }
    const auto gathered = inter_node_data(CollectiveKind::AllGather, isa::DType::Bf16, buffers);
    EXPECT_EQ(floats_of(gathered[2]), (std::vector<float>{256, 1.5f, 1, -0.25f, 1, 2}));
    const std::vector<std::vector<uint8_t>> two = {bf16_buffer({1, 2, 3, 4}), bf16_buffer({10, 20, 30, 40})};
    const auto scattered = inter_node_data(CollectiveKind::ReduceScatter, isa::DType::Bf16, two);
    EXPECT_EQ(floats_of(scattered[0]), (std::vector<float>{11, 22}));
    EXPECT_EQ(floats_of(scattered[1]), (std::vector<float>{33, 44}));
    EXPECT_THROW(inter_node_data(CollectiveKind::AllReduce, isa::DType::Bf16, {bf16_buffer({1}), bf16_buffer({1, 2})}),
                 std::invalid_argument);
}

}  // namespace
}  // namespace nsim::sim::cluster
