// `neuron-sim run bert.bin --json` for a model built by neuron-build: the report's contract (the
// keys the issue names, with numbers that agree with each other), on a small timing-only model with
// 2 data-parallel copies on trn1.2xlarge.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "kernels_test_support.h"
#include "model_cli_support.h"

namespace nsim::kernels {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using testing::ScratchDir;
using testing::number;

constexpr uint32_t kRunCopies = 2, kRunBatch = 3, kIterations = 4;

TEST(RunBuiltModelJson, ReportsLatencyThroughputEnginesAndLoadTimeThatAgree) {
    ScratchDir dir;
    testing::write_text(dir / "config.json",
                        R"({"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
                            "intermediate_size": 256, "max_position_embeddings": 64})");
    const fs::path model = dir / "bert.bin";
    ASSERT_EQ(run_command(testing::neuron_build_bert(fmt::format("--model {} --seq 32 --batch {} --cores {} --timing-only "
                                                                 "-i trn1.2xlarge -o {}",
                                                                 (dir / "config.json").string(), kRunBatch, kRunCopies, model.string())))
                  .exit_code,
              0);
    const auto r = run_command(testing::neuron_sim("trn1.2xlarge", "run") + model.string() +
                               fmt::format(" --iterations {} --json", kIterations));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);

    EXPECT_EQ(j.at("model"), "config");
    EXPECT_EQ(j.at("copies"), kRunCopies);
    EXPECT_EQ(j.at("batch"), kRunBatch);
    EXPECT_EQ(j.at("iterations"), kIterations);

    // Latency: end to end = host embedding + PCIe and runtime + the engines, never less than the
    // engines alone; percentiles in order. Every execution of a timing-only run takes the same time,
    // so the last one's parts add up to the percentiles.
    const double p50 = number(j, "latency_ms", "p50"), p99 = number(j, "latency_ms", "p99");
    const double device_p50 = number(j, "device_latency_ms", "p50"), device_p99 = number(j, "device_latency_ms", "p99");
    EXPECT_GT(device_p50, 0);
    EXPECT_LE(device_p50, device_p99);
    EXPECT_LE(p50, p99);
    const double host_embedding = number(j, "end_to_end_ms", "host_embedding"),
                 pcie_and_runtime = number(j, "end_to_end_ms", "pcie_and_runtime"), device = number(j, "end_to_end_ms", "device");
    EXPECT_GT(host_embedding, 0) << "neuron-build's default embeds on the host";
    EXPECT_GT(pcie_and_runtime, 0);
    EXPECT_NEAR(device, device_p50, 1e-9 * device);
    EXPECT_NEAR(p50, host_embedding + pcie_and_runtime + device, 1e-9 * p50);
    EXPECT_GT(p50, device_p50);
    // The engines' own report of that execution says the same device time.
    EXPECT_NEAR(j.at("time_us").get<double>() / 1e3, device, 1e-9 * device);

    // Throughput: the sequences of one execution (every copy's batch) per end-to-end p50 latency.
    EXPECT_NEAR(j.at("throughput_per_s").get<double>(), kRunCopies * kRunBatch / (p50 / 1e3), 1e-9 * j.at("throughput_per_s").get<double>());

    // Engines: every compute engine of both copies' cores, each busy no longer than the execution
    // and busy plus waiting on semaphores no longer than it either; the tensor engines did work.
    const nlohmann::json& engines = j.at("engines");
    for (const std::string core : {"core0", "core1"})
        for (const std::string engine : {"pe", "act", "dve", "pool"}) {
            ASSERT_TRUE(engines.contains(core + "." + engine)) << engines.dump();
            const nlohmann::json& e = engines.at(core + "." + engine);
            const double busy = e.at("busy_pct").get<double>(), wait = e.at("semaphore_wait_pct").get<double>();
            EXPECT_GE(busy, 0);
            EXPECT_LE(busy + wait, 100 + 1e-9) << core << "." << engine;
            EXPECT_GT(e.at("instructions").get<uint64_t>(), 0u) << core << "." << engine;
        }
    EXPECT_GT(engines.at("core0.pe").at("busy_pct").get<double>(), 1.0);
    EXPECT_GT(engines.at("core1.pe").at("busy_pct").get<double>(), 1.0);

    // Load: simulated, through the driver.
    EXPECT_GT(j.at("load_time_ms").get<double>(), 0);
}

}  // namespace
}  // namespace nsim::kernels
