// `neuron-sim serve bert.bin` as a user runs it, on a small timing-only model from neuron-build (2
// copies x batch 4 on trn1.2xlarge). The report's numbers must agree with each other and with the
// closed-loop load: requests = clients x requests each, padding not counted, throughput x simulated
// time = requests, and in the set-ups where the schedule can be worked out by hand (every slot
// filled, or one short batch at a time, with and without a batch delay) latency and throughput are
// what one execution's time says they must be. User errors are one line and a non-zero exit.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "kernels_test_support.h"
#include "model_cli_support.h"

namespace nsim::kernels {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using testing::expect_neuron_sim_user_error;
using testing::ScratchDir;
using testing::number;

constexpr uint32_t kCopies = 2, kBatch = 4;
const std::string kInstance = "trn1.2xlarge";  // 2 NeuronCores: one copy on each

// Small and quick (2 layers, hidden 128), timing only, host-side embedding (neuron-build's default).
fs::path build_model(const fs::path& dir) {
    testing::write_text(dir / "config.json",
                        R"({"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
                            "intermediate_size": 256, "max_position_embeddings": 64})");
    const fs::path model = dir / "bert.bin";
    const auto r = run_command(testing::neuron_build_bert(
        fmt::format("--model {} --seq 32 --batch {} --cores {} --timing-only -i {} -o {}", (dir / "config.json").string(), kBatch,
                    kCopies, kInstance, model.string())));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return model;
}

class Serve : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new ScratchDir("Serve");
        model_ = build_model(dir_->path());
    }
    static void TearDownTestSuite() { delete dir_; }

    static test::CommandResult serve(const std::string& args) {
        return run_command(testing::neuron_sim(kInstance, "serve") + model_.string() + " " + args);
    }
    static nlohmann::json serve_json(const std::string& args) {
        const auto r = serve(args + " --json");
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_TRUE(r.err.empty()) << r.err;
        return nlohmann::json::parse(r.out);
    }

    static ScratchDir* dir_;
    static fs::path model_;
};
ScratchDir* Serve::dir_ = nullptr;
fs::path Serve::model_;

// What the report says one execution of `real` requests takes: the copy's engines and PCIe + runtime
// (fixed: the batch is padded to its compiled shape) and the host embedding, proportional to `real`.
double execution_ms(const nlohmann::json& j, uint32_t real) {
    return number(j, "execution_ms", "device") + number(j, "execution_ms", "pcie_and_runtime") +
           number(j, "execution_ms", "host_embedding_full_batch") * real / kBatch;
}

// The report's own consistency, whatever the load.
void expect_consistent(const nlohmann::json& j, uint32_t clients, uint32_t requests_each) {
    EXPECT_EQ(j.at("copies"), kCopies);
    EXPECT_EQ(j.at("batch"), kBatch);
    EXPECT_EQ(j.at("clients"), clients);
    EXPECT_EQ(j.at("requests"), clients * requests_each);
    const double requests = number(j, "requests"), executions = number(j, "executions");
    EXPECT_EQ(executions * kBatch, requests + number(j, "padded_slots")) << "padding fills every short batch, and only that";
    EXPECT_NEAR(number(j, "mean_batch"), requests / executions, 1e-9);
    EXPECT_NEAR(number(j, "throughput_per_s") * number(j, "simulated_s"), requests, 1e-6 * requests);
    const double p50 = number(j, "latency_ms", "p50"), p90 = number(j, "latency_ms", "p90"), p99 = number(j, "latency_ms", "p99");
    EXPECT_LE(p50, p90);
    EXPECT_LE(p90, p99);
    EXPECT_GT(number(j, "execution_ms", "device"), 0);
    EXPECT_GT(number(j, "execution_ms", "pcie_and_runtime"), 0);
    EXPECT_GT(number(j, "execution_ms", "host_embedding_full_batch"), 0);
    // No request comes back sooner than one execution takes; no copy runs more than a full batch at a time.
    EXPECT_GE(p50 * (1 + 1e-9), execution_ms(j, 1));
    EXPECT_LE(number(j, "throughput_per_s"), kCopies * kBatch / (execution_ms(j, kBatch) / 1e3) * (1 + 1e-9));
}

// As many clients as batch slots: every execution is full and every request takes exactly one.
TEST_F(Serve, ClientsFillingEverySlotEachWaitOneExecution) {
    const nlohmann::json j = serve_json("--clients 8 --requests 16");
    expect_consistent(j, 8, 16);
    const double one_ms = execution_ms(j, kBatch);
    EXPECT_EQ(j.at("padded_slots"), 0);
    EXPECT_EQ(j.at("executions"), 8 * 16 / kBatch);
    for (const char* p : {"p50", "p90", "p99"}) EXPECT_NEAR(number(j, "latency_ms", p), one_ms, 1e-9 * one_ms) << p;
    EXPECT_NEAR(number(j, "simulated_s"), 16 * one_ms / 1e3, 1e-9);
    EXPECT_NEAR(number(j, "throughput_per_s"), 8 / (one_ms / 1e3), 1e-6 * number(j, "throughput_per_s"));
}

// More clients than slots: full batches back to back on both copies, the rest queue for one or two rounds.
TEST_F(Serve, MoreClientsThanSlotsQueueAtFullThroughput) {
    const nlohmann::json j = serve_json("--clients 20 --requests 10");
    expect_consistent(j, 20, 10);
    const double one_ms = execution_ms(j, kBatch);
    EXPECT_EQ(j.at("padded_slots"), 0);
    EXPECT_NEAR(number(j, "throughput_per_s"), kCopies * kBatch / (one_ms / 1e3), 1e-6 * number(j, "throughput_per_s"));
    EXPECT_GT(number(j, "latency_ms", "p50"), one_ms * 1.5) << "requests queue behind the ones before them";
    EXPECT_LE(number(j, "latency_ms", "p99"), 3 * one_ms * (1 + 1e-9)) << "20 clients over 8 slots wait at most 3 rounds";
}

// Fewer clients than a batch: one copy runs them as one padded batch, the padding is not counted;
// a batch delay holds every such batch back by exactly that delay (it never fills).
TEST_F(Serve, ShortBatchesArePaddedAndWaitTheBatchDelay) {
    for (const double delay_ms : {0.0, 5.0}) {
        const nlohmann::json j = serve_json(fmt::format("--clients 3 --requests 5 --max-batch-delay {}", delay_ms));
        expect_consistent(j, 3, 5);
        EXPECT_EQ(j.at("executions"), 5);
        EXPECT_EQ(j.at("padded_slots"), 5);
        EXPECT_NEAR(number(j, "mean_batch"), 3.0, 1e-12);
        const double latency_ms = delay_ms + execution_ms(j, 3);
        for (const char* p : {"p50", "p99"}) EXPECT_NEAR(number(j, "latency_ms", p), latency_ms, 1e-9 * latency_ms) << p;
        EXPECT_NEAR(number(j, "throughput_per_s"), 3 / (latency_ms / 1e3), 1e-6 * number(j, "throughput_per_s"));
    }
}

// The text report says what --json says.
TEST_F(Serve, TextReportMatchesTheJson) {
    const nlohmann::json j = serve_json("--clients 20 --requests 10");
    const auto r = serve("--clients 20 --requests 10");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const std::string& out = r.out;
    EXPECT_NE(out.find(fmt::format("serving config on {}: 2 copies x batch 4, 20 clients x 10 requests, batch delay 0 ms", kInstance)),
              std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("one execution      {:.3f} ms (engines {:.3f} ms, PCIe + runtime {:.3f} ms, host embedding {:.3f} ms)",
                                   execution_ms(j, kBatch), number(j, "execution_ms", "device"),
                                   number(j, "execution_ms", "pcie_and_runtime"),
                                   number(j, "execution_ms", "host_embedding_full_batch"))),
              std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("throughput         {:.1f} inferences/s (200 requests in {:.3f} s simulated)",
                                   number(j, "throughput_per_s"), number(j, "simulated_s"))),
              std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("latency            p50 {:.2f} ms   p90 {:.2f} ms   p99 {:.2f} ms", number(j, "latency_ms", "p50"),
                                   number(j, "latency_ms", "p90"), number(j, "latency_ms", "p99"))),
              std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("batches            {} executions, {:.2f} real requests each, 0 padded slots",
                                   j.at("executions").get<int>(), number(j, "mean_batch"))),
              std::string::npos) << out;
}

TEST_F(Serve, ABareProgramIsNotAModel) {
    const fs::path bare = dir_->path() / "bare.bin";
    isa::write_file(bare, isa::write_container(isa::assemble(".target v2\n.cores 1\n.core 0\nact nop\n", "bare").container));
    expect_neuron_sim_user_error(run_command(testing::neuron_sim(kInstance, "serve") + bare.string()),
                                 bare.string() + " is not a model built by neuron-build");
}

TEST_F(Serve, AModelForAnotherGeneration) {
    expect_neuron_sim_user_error(run_command(testing::neuron_sim("inf1.2xlarge", "serve") + model_.string()),
                                 "the model is for NeuronCore-v2, but inf1.2xlarge has NeuronCore-v1");
}

TEST_F(Serve, AMissingModelFile) {
    const fs::path missing = dir_->path() / "nope.bin";
    expect_neuron_sim_user_error(run_command(testing::neuron_sim(kInstance, "serve") + missing.string()), missing.string());
}

TEST_F(Serve, BadLoadOptions) {
    expect_neuron_sim_user_error(serve("--clients 0"), "--clients");
    expect_neuron_sim_user_error(serve("--requests 0"), "--requests");
    expect_neuron_sim_user_error(serve("--clients many"), "--clients");
    expect_neuron_sim_user_error(serve("--max-batch-delay -1"), "--max-batch-delay");
}

}  // namespace
}  // namespace nsim::kernels
