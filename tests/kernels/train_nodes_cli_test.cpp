// `neuron-build bert-train --nodes M` + `neuron-sim train --nodes M` (issue 17): a small BERT trained
// functionally on two trn1.32xlarge of two cores each, in one process and spread over two MPI ranks
// (the same losses, gradient norms, step times and trained parameters); two nodes against one node
// over the same global batch (the same training up to fp32 rounding: the same micro-batches, summed
// in another order); the report's cluster section; and the one-line errors.
#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "bert/hf_checkpoint.h"
#include "common/command_runner.h"
#include "kernels_test_support.h"
#include "model_cli_support.h"

namespace nsim::kernels {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using testing::ScratchDir;
using testing::expect_neuron_sim_user_error;

constexpr const char* kInstance = "trn1.32xlarge";
constexpr const char* kMpiEnvironment = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";

fs::path write_small_config(const fs::path& dir) {
    BertConfig c;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 256;
    c.max_position_embeddings = 64;
    c.initializer_range = 0.05;
    const fs::path path = dir / "config.json";
    std::ofstream(path) << bert_config_to_json(c).dump(2);
    return path;
}

test::CommandResult build(const fs::path& dir, const std::string& args, const fs::path& out,
                          const std::string& instance = kInstance) {
    return run_command(test::tool_path("neuron-build") + " bert-train --model " + write_small_config(dir).string() +
                       " --seq 32 --micro-batch 2 --instance " + instance + " " + args + " -o " + out.string());
}

fs::path build_program(const fs::path& dir, const std::string& args, const std::string& name) {
    const fs::path out = dir / name;
    const auto r = build(dir, args, out);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
}

std::string mpirun(int processes) {
    return std::string(NSIM_MPIEXEC) + " --oversubscribe -np " + std::to_string(processes) + " ";
}

std::string train(const fs::path& program, const std::string& args) {
    return testing::neuron_sim(kInstance, "train") + program.string() + " " + args;
}

// The report without what only the host's time or the process count changes.
nlohmann::json simulated_numbers(nlohmann::json report) {
    report["cluster"].erase("simulation_host_time_by_rank");
    report["cluster"].erase("processes");
    report["last_step_engines"].erase("host");
    return report;
}

std::string file_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// bf16 with stochastic rounding and dropout, so that each node's rounding streams and dropout
// generator are part of what a process simulating both nodes must keep apart.
TEST(TrainNodes, MpiRanksGiveTheNumbersOfOneProcess) {
    ScratchDir dir;
    const fs::path program = build_program(
        dir.path(), "--cores 2 --nodes 2 --grad-accum 4 --dtype bf16 --stochastic-rounding", "train.bin");
    const fs::path pairs = testing::write_mrpc_pairs(dir.path(), 16);
    const std::string args = "--steps 2 --functional --json --lr 1e-3 --data " + pairs.string() + " --save ";
    const auto alone = run_command(train(program, args + (dir / "alone").string()));
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    const auto spread = run_command(mpirun(2) + train(program, args + (dir / "spread").string()), kMpiEnvironment);
    ASSERT_EQ(spread.exit_code, 0) << spread.err;
    const nlohmann::json one = nlohmann::json::parse(alone.out), two = nlohmann::json::parse(spread.out);
    EXPECT_EQ(one["cluster"]["processes"], 1);
    EXPECT_EQ(two["cluster"]["processes"], 2);
    ASSERT_EQ(two["cluster"]["simulation_host_time_by_rank"].size(), 2u);
    EXPECT_GT(one["steps"][1]["loss"].get<double>(), 0.1);
    EXPECT_EQ(simulated_numbers(one).dump(), simulated_numbers(two).dump());
    const std::string trained = file_bytes(dir / "alone" / "model.safetensors");
    EXPECT_GT(trained.size(), 1000u);
    EXPECT_EQ(trained, file_bytes(dir / "spread" / "model.safetensors"));
}

// 2 nodes x 2 cores x 2 micro-steps take the 8 micro-batches one node x 2 cores x 4 micro-steps
// takes (node n's core c, micro-step k: the (4k + 2n + c)-th, against the (2k + c)-th), so fp32
// training goes the same way up to the order of the sums: the losses and the trained parameters agree.
TEST(TrainNodes, TwoNodesTrainAsOneNodeOverTheSameGlobalBatch) {
    ScratchDir dir;
    const std::string common = "--cores 2 --grad-accum 4 --dtype fp32 --disable-dropout";
    const fs::path one_node = build_program(dir.path(), common, "one.bin");
    const fs::path two_nodes = build_program(dir.path(), common + " --nodes 2", "two.bin");
    const fs::path pairs = testing::write_mrpc_pairs(dir.path(), 16);
    const std::string args = "--steps 2 --functional --json --lr 1e-3 --data " + pairs.string() + " --save ";
    const auto a = run_command(train(one_node, args + (dir / "one").string()));
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const auto b = run_command(train(two_nodes, "--nodes 2 " + args + (dir / "two").string()));
    ASSERT_EQ(b.exit_code, 0) << b.err;
    const nlohmann::json one = nlohmann::json::parse(a.out), two = nlohmann::json::parse(b.out);
    for (int step = 0; step < 2; ++step) {
        EXPECT_NEAR(one["steps"][step]["loss"].get<double>(), two["steps"][step]["loss"].get<double>(), 1e-5);
        EXPECT_NEAR(one["steps"][step]["grad_norm"].get<double>(), two["steps"][step]["grad_norm"].get<double>(), 1e-4);
    }
    // The same 16 sequences per step.
    EXPECT_NEAR(one["throughput_per_s"].get<double>() * one["step_s"].get<double>(), 16.0, 1e-6);
    EXPECT_NEAR(two["throughput_per_s"].get<double>() * two["step_s"].get<double>(), 16.0, 1e-6);
    BertWeights w1 = load_hf_checkpoint(dir / "one"), w2 = load_hf_checkpoint(dir / "two");
    const std::vector<BertTensorSlot> s1 = bert_tensor_slots(w1, true), s2 = bert_tensor_slots(w2, true);
    ASSERT_EQ(s1.size(), s2.size());
    double worst = 0;
    size_t moved = 0;
    for (size_t t = 0; t < s1.size(); ++t) {
        ASSERT_EQ(s1[t].tensor->values.size(), s2[t].tensor->values.size()) << s1[t].name;
        for (size_t i = 0; i < s1[t].tensor->values.size(); ++i) {
            worst = std::max(worst, double(std::fabs(s1[t].tensor->values[i] - s2[t].tensor->values[i])));
            moved += s1[t].tensor->values[i] != s2[t].tensor->values[i];
        }
    }
    // AdamW's first steps move a parameter by up to lr = 1e-3: the two agree far below that.
    EXPECT_LT(worst, 2e-5) << moved << " values differ";
}

// A timing run of the two-node program: the step composed with the inter-node phase, and the
// cluster section (throughput, scaling efficiency against one node, the simulation's time per rank).
TEST(TrainNodes, TheReportGivesTheClusterThroughputAndScalingEfficiency) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--cores 2 --nodes 2 --grad-accum 4 --timing-only", "train.bin");
    const auto text = run_command(train(program, "--steps 1"));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    for (const char* line : {"reduce-scatter + inter-node all-reduce + all-gather + optimizer", "cluster throughput",
                             "scaling efficiency", "simulation, rank 0", "x trn1.32xlarge joined by EFA"})
        EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
    const auto r = run_command(train(program, "--steps 1 --json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& c = j["cluster"];
    EXPECT_EQ(c["nodes"], 2);
    const double step = c["step_s"].get<double>(), inter = c["inter_node_s"].get<double>();
    EXPECT_GT(inter, 0);
    EXPECT_NEAR(c["throughput_per_s"].get<double>() * step, 2 * 2 * 2 * 2, 1e-6);   // mb 2 x 2 micro-steps x 2 cores x 2 nodes
    EXPECT_NEAR(c["single_node_throughput_per_s"].get<double>() * (step - inter), 8, 1e-6);
    EXPECT_NEAR(c["scaling_efficiency"].get<double>(), (step - inter) / step, 1e-9);
    EXPECT_GT(c["simulation_host_time_by_rank"][0]["cpu_s_per_step"].get<double>(), 0);
}

TEST(TrainNodes, UserErrorsAreOneLine) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--cores 2 --nodes 2 --grad-accum 2 --timing-only", "train.bin");
    expect_neuron_sim_user_error(run_command(train(program, "--nodes 3 --steps 1")),
                                 "--nodes 3: " + program.string() + " was built for 2 node(s)");
    expect_neuron_sim_user_error(run_command(train(program, "--nodes 0 --steps 1")), "--nodes 0: training runs on at least one node");
    expect_neuron_sim_user_error(run_command(testing::neuron_sim("trn1.2xlarge", "train") + program.string() + " --steps 1"),
                                 "--nodes 2: trn1.2xlarge has no EFA to join instances");
    // Under mpirun every rank meets it; the first rank alone says it (mpirun adds its own lines).
    const auto ranks = run_command(mpirun(3) + train(program, "--steps 1"), kMpiEnvironment);
    EXPECT_NE(ranks.exit_code, 0);
    const std::string line = "neuron-sim: 2 nodes over 3 MPI ranks: each rank simulates one node or more (mpirun -np 1 to 2)\n";
    const size_t at = ranks.err.find(line);
    EXPECT_NE(at, std::string::npos) << ranks.err;
    EXPECT_EQ(ranks.err.find(line, at + 1), std::string::npos) << ranks.err;
    EXPECT_EQ(ranks.err.find("neuron-sim: "), at) << ranks.err;
    // The build's.
    for (const auto& [args, instance, needle] :
         {std::tuple<std::string, std::string, std::string>{"--nodes 2 --grad-accum 3", kInstance,
                                                            "--grad-accum 3 does not divide among --nodes 2"},
          {"--nodes 2", "trn1.2xlarge", "--nodes 2: trn1.2xlarge has no EFA"}}) {
        const auto r = build(dir.path(), args, dir / "bad.bin", instance);
        EXPECT_NE(r.exit_code, 0) << args;
        EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace nsim::kernels
