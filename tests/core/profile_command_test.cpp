// `neuron-sim profile` and `run --profile FILE` on the hand-scheduled tiled GEMM of isa/examples: the
// summary carries neuron-profile's metric names, and its figures agree with each other, with the
// work and bytes the program itself describes, with the chip's configured peak and with the run
// report of the same execution.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/temp_directory.h"
#include "config/config_set.h"
#include "cli_test_support.h"

namespace nsim {
namespace {

using test::neuron_sim_path;
namespace fs = std::filesystem;

// The example assembled into a temporary program file.
std::string tiled_gemm_for_profile() { return test::assembled_example("tiled_gemm_double_buffered", "profile_tiled_gemm.bin"); }

// The example's shape: C[128, 2048] = A^T B, A [256, 128], B [256, 2048] bf16, C fp32.
constexpr uint64_t kM = 128, kK = 256, kN = 2048;

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

const char* const kNeuronProfileNames[] = {
    "total_time", "neuroncore_cycle_count", "model_flops", "hardware_flops", "transpose_flops", "mm_arithmetic_intensity",
    "dma_active_time", "dma_active_time_percent", "dma_transfer_average_bytes", "dma_transfer_count",
    "dma_transfer_total_bytes", "dma_queue_count", "mbu_estimated_percent", "hbm_write_bytes", "hbm_read_bytes",
    "tensor_engine_active_time", "tensor_engine_active_time_percent", "tensor_engine_instruction_count",
    "matmul_instruction_count", "mfu_estimated_percent", "hfu_estimated_percent", "vector_engine_active_time",
    "vector_engine_active_time_percent", "vector_engine_instruction_count", "scalar_engine_active_time",
    "scalar_engine_active_time_percent", "scalar_engine_instruction_count", "gpsimd_engine_active_time_percent",
    "sync_engine_active_time_percent"};

TEST(ProfileCommand, TiledGemmSummaryAgreesWithItselfTheProgramAndTheChip) {
    const std::string prog = tiled_gemm_for_profile();
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge profile " + prog + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& s = j["summary"];
    for (const char* name : kNeuronProfileNames) ASSERT_TRUE(s.contains(name)) << name;
    for (const char* name : {"dma_bandwidth_bytes_per_s", "hbm_read_bandwidth_bytes_per_s", "hbm_write_bandwidth_bytes_per_s",
                             "semaphore_wait_time", "tensor_engine_semaphore_wait_time", "dma_semaphore_wait_time"})
        ASSERT_TRUE(s.contains(name)) << name;

    // The work is the program's: eight 128 x 128 x 512 matmuls, no transposes.
    EXPECT_EQ(s["model_flops"].get<double>(), 2.0 * kM * kK * kN);
    EXPECT_EQ(s["matmul_instruction_count"], 8);
    EXPECT_EQ(s["transpose_flops"].get<double>(), 0.0);
    EXPECT_EQ(s["hardware_flops"], s["model_flops"]);
    // And so are the bytes: A and B read once, C written once, every byte by a DMA.
    EXPECT_EQ(s["hbm_read_bytes"], kK * kM * 2 + kK * kN * 2);
    EXPECT_EQ(s["hbm_write_bytes"], kM * kN * 4);
    EXPECT_EQ(s["dma_transfer_total_bytes"].get<uint64_t>(), s["hbm_read_bytes"].get<uint64_t>() + s["hbm_write_bytes"].get<uint64_t>());
    EXPECT_EQ(s["dma_transfer_count"], 2 + 8 + 4);
    EXPECT_EQ(s["dma_queue_count"], 2);

    // Percentages are shares of the time the core had.
    const double time = s["total_time"];
    ASSERT_GT(time, 0.0);
    for (const auto& [name, value] : s.items())
        if (name.size() > 8 && name.substr(name.size() - 8) == "_percent") {
            EXPECT_GE(value.get<double>(), 0.0) << name;
            EXPECT_LE(value.get<double>(), 100.0) << name;
        }
    for (const char* engine : {"tensor_engine", "vector_engine", "scalar_engine", "dma"})
        EXPECT_NEAR(s[std::string(engine) + "_active_time_percent"].get<double>(),
                    100 * s[std::string(engine) + "_active_time"].get<double>() / time, 1e-9) << engine;

    // MFU is the matmuls' work at the chip's configured bf16 peak over the time; HFU counts more work, and
    // no engine computes faster than its peak, so the tensor engine was active at least that long.
    const config::ConfigSet configs = config::ConfigSet::load(NSIM_CONFIG_DIR);
    const double peak = configs.host("trn1.2xlarge").chip.core.tensor.peak_flops.at("bf16");
    const double mfu = s["mfu_estimated_percent"], hfu = s["hfu_estimated_percent"];
    EXPECT_LT(rel(mfu, 100.0 * 2.0 * kM * kK * kN / (time * peak)), 1e-9) << mfu;
    EXPECT_GT(mfu, 0.0);
    EXPECT_LE(mfu, hfu);
    EXPECT_LE(hfu, s["tensor_engine_active_time_percent"].get<double>());
    EXPECT_LT(rel(s["mm_arithmetic_intensity"], (s["hardware_flops"].get<double>() - s["transpose_flops"].get<double>()) /
                                                   (s["hbm_read_bytes"].get<double>() + s["hbm_write_bytes"].get<double>())),
              1e-12);

    // Bandwidths are bytes over time.
    EXPECT_LT(rel(s["hbm_read_bandwidth_bytes_per_s"], s["hbm_read_bytes"].get<double>() / time), 1e-12);
    EXPECT_LT(rel(s["hbm_write_bandwidth_bytes_per_s"], s["hbm_write_bytes"].get<double>() / time), 1e-12);
    EXPECT_LT(rel(s["dma_bandwidth_bytes_per_s"], s["dma_transfer_total_bytes"].get<double>() / time), 1e-12);
    EXPECT_LT(rel(s["dma_transfer_average_bytes"], s["dma_transfer_total_bytes"].get<double>() / 14), 1e-12);

    // The kernel waits (pe for its loads, act for pe, the DMAs for free buffers); the total is every queue's.
    double waits = 0;
    for (const char* engine : {"tensor_engine", "vector_engine", "scalar_engine", "gpsimd_engine", "sync_engine", "dma"})
        waits += s[std::string(engine) + "_semaphore_wait_time"].get<double>();
    EXPECT_GT(s["tensor_engine_semaphore_wait_time"].get<double>(), 0.0);
    EXPECT_LT(rel(s["semaphore_wait_time"], waits), 1e-12);

    // One core: its own summary is the whole one.
    ASSERT_EQ(j["per_core"].size(), 1u);
    EXPECT_EQ(j["per_core"][0]["nc_idx"], 0);
    for (const char* name : {"total_time", "model_flops", "hbm_read_bytes", "tensor_engine_active_time", "dma_active_time"})
        EXPECT_EQ(j["per_core"][0][name], s[name]) << name;

    // `run --profile FILE` writes the same summary beside the run report, which agrees with it.
    const std::string file = test::scratch_path("profile.json").string();
    const auto run = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + prog + " --json --profile " + file);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json report = nlohmann::json::parse(run.out);
    std::ifstream in(file);
    const nlohmann::json written = nlohmann::json::parse(in);
    EXPECT_EQ(written["summary"]["model_flops"], s["model_flops"]);
    EXPECT_EQ(written["summary"]["total_time"], s["total_time"]) << "the same simulation, the same time";
    EXPECT_NEAR(report["time_us"].get<double>() * 1e-6, time, 1e-15);
    EXPECT_EQ(report["cycles"], s["neuroncore_cycle_count"]);
    EXPECT_EQ(report["dma"]["bytes"], s["dma_transfer_total_bytes"]);
    EXPECT_EQ(report["device_memory"]["bytes"].get<uint64_t>(),
              s["hbm_read_bytes"].get<uint64_t>() + s["hbm_write_bytes"].get<uint64_t>())
        << "the device-memory channels carried exactly the DMAs' reads and writes";
    // The DMA queues' union of activity: at least each queue's, at most their sum.
    const double dma0 = report["engines"]["core0.dma0"]["busy_pct"], dma1 = report["engines"]["core0.dma1"]["busy_pct"];
    const double active = s["dma_active_time_percent"];
    EXPECT_GE(active + 1e-9, std::max(dma0, dma1));
    EXPECT_LE(active, dma0 + dma1 + 1e-9);
}

TEST(ProfileCommand, SummaryTextIsOneNameValueLinePerMetric) {
    const auto r = test::run_command(neuron_sim_path() + " --instance trn1.2xlarge profile " + tiled_gemm_for_profile());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("total_time ", 0), 0u) << r.out;
    for (const char* name : kNeuronProfileNames)
        EXPECT_NE(r.out.find(std::string("\n") + name + " "), std::string::npos) << name;
    EXPECT_NE(r.out.find("\nnc_idx "), std::string::npos) << r.out;
}


TEST(ProfileCommand, UnwritableProfileFileAndMissingProgramAreOneLine) {
    test::expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + tiled_gemm_for_profile() +
                                            " --profile /nonexistent/dir/p.json"),
                          "cannot write the profile file /nonexistent/dir/p.json: No such file or directory");
    test::expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge run " + tiled_gemm_for_profile() + " --profile /"),
                                "cannot write the profile file /: Is a directory");
    test::expect_one_line_error(test::run_command(neuron_sim_path() + " --instance trn1.2xlarge profile /nonexistent/k.bin"), "/nonexistent/k.bin");
}

}  // namespace
}  // namespace nsim
