// A program for inter_node_phase_test: M nodes of a trn1.32xlarge cluster, spread over the MPI ranks
// when mpirun starts it, run one functional inter-node all-reduce through library::run_inter_node_phase
// (the hook a multi-node program calls), each node arriving at its own time with its own bf16
// buffers; rank 0 prints every node's end time and results. Usage: probe NODES RANKS_PER_NODE ELEMENTS.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include <systemc>  // declares sc_main extern "C"

#include "config/config_set.h"
#include "core/semantics/dtype_conversion.h"
#include "library/inter_node_phase.h"

using namespace nsim;

// Rank `rank` of node `node`, element `j`: distinct values that bf16 rounds (tests/tools/inter_node_phase_test.cpp).
float probe_value(uint32_t node, uint32_t rank, uint32_t j) { return 0.37f * float(node + 1) + 0.11f * float(rank) - 0.013f * float(j); }

int sc_main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s NODES RANKS_PER_NODE ELEMENTS\n", argv[0]);
        return 2;
    }
    const uint32_t nodes = uint32_t(std::atoi(argv[1])), ranks = uint32_t(std::atoi(argv[2])), elements = uint32_t(std::atoi(argv[3]));
    try {
        const config::HostSpec spec = config::ConfigSet::load(NSIM_CONFIG_DIR).host("trn1.32xlarge");
        auto exchange = library::open_node_exchange();
        exchange->spread(nodes);
        std::vector<library::NodeArrival> local;
        for (uint32_t k = exchange->first_local_node(); k < exchange->first_local_node() + exchange->local_node_count(); ++k) {
            library::NodeArrival node;
            node.node = k;
            node.time_ps = 1000000 + 7919 * uint64_t(k);   // the nodes finish their reduce-scatter at different times
            for (uint32_t i = 0; i < ranks; ++i) {
                std::vector<float> values(elements);
                for (uint32_t j = 0; j < elements; ++j) values[j] = probe_value(k, i, j);
                std::vector<uint8_t> bytes(elements * 2);
                sim::core::dtype::encode(isa::DType::Bf16, values.data(), bytes.data(), elements);
                node.rank_data.push_back(bytes);
            }
            local.push_back(node);
        }
        const sim::cluster::CollectivePhase phase{true, sim::cluster::CollectiveKind::AllReduce, elements};
        const auto done = library::run_inter_node_phase(*exchange, spec, phase, ranks, isa::DType::Bf16, local);
        const auto all = exchange->exchange(done);   // every node's results, for rank 0 to print
        if (exchange->process() != 0) return 0;
        for (const auto& node : all) {
            std::printf("node %u end_ps %llu\n", node.node, static_cast<unsigned long long>(node.time_ps));
            for (uint32_t i = 0; i < node.rank_data.size(); ++i) {
                std::vector<float> values(elements);
                sim::core::dtype::decode(isa::DType::Bf16, node.rank_data[i].data(), values.data(), elements);
                std::printf("node %u rank %u", node.node, i);
                for (float v : values) std::printf(" %.9g", double(v));
                std::printf("\n");
            }
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "probe: %s\n", e.what());
        return 1;
    }
}
