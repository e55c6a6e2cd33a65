// `neuron-build bert-train` + `neuron-sim train` as a user runs them: a small BERT (2 layers, hidden
// 128, the real uncased vocabulary) fine-tuned on real MRPC pairs through the runtime and driver, the
// loss falling over the steps; the log line per step; the report's contract; and every user error
// (an inference model given to train, a data file that does not parse, more cores than the instance
// has, what is not built yet) as one line on stderr with a non-zero exit.
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/bert_config.h"
#include "isa/container_io.h"
#include "common/command_runner.h"
#include "kernels_test_support.h"
#include "model_cli_support.h"

namespace nsim::kernels {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using testing::ScratchDir;
using testing::expect_neuron_sim_user_error;
using testing::write_mrpc_pairs;

constexpr const char* kInstance = "trn1.2xlarge";

BertConfig small_config() {
    BertConfig c;
    c.vocab_size = 30522;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 256;
    c.max_position_embeddings = 64;
    c.initializer_range = 0.05;
    return c;
}

fs::path write_config(const fs::path& dir) {
    const fs::path path = dir / "config.json";
    std::ofstream(path) << bert_config_to_json(small_config()).dump(2);
    return path;
}


std::string build_train(const std::string& args) { return test::tool_path("neuron-build") + " bert-train " + args; }

fs::path build_program(const fs::path& dir, const std::string& args) {
    const fs::path out = dir / "train.bin";
    const auto r = run_command(build_train("--model " + write_config(dir).string() + " --seq 32 --instance " + kInstance +
                                           " " + args + " -o " + out.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("wrote " + out.string()), std::string::npos) << r.out;
    return out;
}

std::string train(const fs::path& program, const std::string& args) {
    return testing::neuron_sim(kInstance, "train") + program.string() + " " + args;
}

// Eight MRPC pairs (four of each class) as one micro-batch, sixteen steps in bf16 with stochastic
// rounding, clipping at 1 and a warmup of two steps, without dropout (--disable-dropout: the first
// two steps' losses then differ by the roundings alone): the model learns them (measured: the loss goes
// from 0.70 to 0.08); the report carries throughput and MFU. The checkpoint --save writes is a model
// neuron-build bert loads, and run --pairs classifies the pairs with it as the training saw them.
TEST(TrainCli, FineTuningOnMrpcPairsLowersTheLoss) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 8 --dtype bf16 --stochastic-rounding --disable-dropout");
    const fs::path pairs = write_mrpc_pairs(dir.path(), 8), checkpoint = dir / "fine-tuned";
    const auto r = run_command(train(program, "--steps 16 --functional --lr 1e-3 --warmup-steps 2 --json --data " +
                                                  pairs.string() + " --save " + checkpoint.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["steps"].size(), 16u);
    std::vector<double> losses;
    for (const auto& step : j["steps"]) losses.push_back(step["loss"].get<double>());
    std::cout << "losses:";
    for (double l : losses) std::cout << " " << l;
    std::cout << "\n";
    EXPECT_GT(losses.front(), 0.3);  // two classes, random weights: near log 2
    EXPECT_LT(losses.back(), 0.5 * losses.front());
    // The first step's learning rate is 0 (warmup): the second step starts from the same parameters,
    // and its loss differs only by the roundings - stochastic rounding draws new bits every
    // execution (the core's stream continues; measured 0.6978 and 0.6995).
    EXPECT_NE(losses[0], losses[1]);
    EXPECT_NEAR(losses[0], losses[1], 0.02);
    EXPECT_GT(j["throughput_per_s"].get<double>(), 0);
    EXPECT_GT(j["mfu"].get<double>(), 0);
    EXPECT_LT(j["mfu"].get<double>(), 1);
    EXPECT_GT(j["memory_bytes"]["optimizer_states"].get<uint64_t>(), j["memory_bytes"]["gradients"].get<uint64_t>());

    ASSERT_TRUE(fs::exists(checkpoint / "model.safetensors"));
    ASSERT_TRUE(fs::exists(checkpoint / "vocab.txt"));
    const fs::path classifier = dir / "classifier.bin";
    const auto built = run_command(testing::neuron_build_bert("--weights " + checkpoint.string() + " --seq 32 --batch 8 --dtype fp32 "
                                                              "--embedding device --instance " + kInstance + " -o " +
                                                              classifier.string()));
    ASSERT_EQ(built.exit_code, 0) << built.err;
    const auto classified = run_command(testing::neuron_sim(kInstance, "run") + classifier.string() +
                                        " --functional --json --pairs " + pairs.string());
    ASSERT_EQ(classified.exit_code, 0) << classified.err;
    const double accuracy = nlohmann::json::parse(classified.out)["accuracy"].get<double>();
    std::cout << "accuracy of the saved checkpoint on its training pairs: " << accuracy << "\n";
    EXPECT_GE(accuracy, 7.0 / 8);  // the last loss (0.08) is that of a model that has learned all eight
}

// Pretraining (masked LM + next sentence) on eight MRPC pairs, masked on the host the BERT way (15 %
// of the tokens, 80/10/10; half the second sentences swapped for a random pair's, seeded) in two
// micro-batches of four: forty fp32 steps lower the loss clearly (random weights start near
// log(30522) + log(2) = 11; measured 10.96 -> 1.54, the last two steps 2.9 against the first two's
// 22.2); the report says it is pretraining.
TEST(TrainCli, PretrainingOnMrpcSentencesLowersTheLoss) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--task pretrain --micro-batch 4 --dtype fp32");
    const fs::path pairs = write_mrpc_pairs(dir.path(), 8);
    const auto r = run_command(train(program, "--steps 40 --functional --lr 2e-3 --warmup-steps 4 --json --data " + pairs.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["steps"].size(), 40u);
    std::vector<double> losses;
    for (const auto& step : j["steps"]) losses.push_back(step["loss"].get<double>());
    std::cout << "losses:";
    for (double l : losses) std::cout << " " << l;
    std::cout << "\n";
    EXPECT_GT(losses.front(), 9.0);
    EXPECT_LT(losses[38] + losses[39], 0.5 * (losses[0] + losses[1]));  // the last two against the first two batches
    const auto text = run_command(train(program, "--steps 1"));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("pretraining"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("5 masked-LM predictions per sequence"), std::string::npos) << text.out;
}

// A timing run prints the BERT script's log line per step, then the report.
TEST(TrainCli, TimingRunPrintsTheLogLinePerStepAndTheReport) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 2 --grad-accum 2 --dtype fp32 --max-grad-norm 0");
    const auto r = run_command(train(program, "--steps 3 --lr 2e-5 --warmup-steps 1"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::regex log(R"(LOG \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} - \(0, (\d)\) step_loss : .+  learning_rate : ([0-9.e+-]+)  throughput : [0-9.]+)");
    std::istringstream lines(r.out);
    std::string line;
    std::vector<double> rates;
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_match(line, m, log)) rates.push_back(std::stod(m[2]));
    }
    ASSERT_EQ(rates.size(), 3u) << r.out;
    EXPECT_EQ(rates[0], 0.0);            // warmup from 0
    EXPECT_NEAR(rates[1], 2e-5, 1e-12);  // the peak after one warmup step
    EXPECT_NEAR(rates[2], 1e-5, 1e-12);  // then linear decay to 0 at the last step
    for (const char* part : {"throughput", "MFU", "device memory", "step composition", "micro-step on the engines"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
}

// The step time splits into forward, backward, accumulation, all-reduce and optimizer from the marks
// the program places and the simulator timestamps: each phase the program has takes time, the
// all-reduce of one core none, and the parts add up to the engines' step time, in the JSON and in the
// text.
TEST(TrainCli, StepTimeSplitsIntoItsPhases) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 2 --grad-accum 2 --dtype bf16");
    const auto r = run_command(train(program, "--steps 2 --json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& parts = j["step_breakdown_s"];
    ASSERT_EQ(parts.size(), 5u) << parts.dump();
    double sum = 0;
    for (const char* phase : {"forward", "backward", "accumulation", "optimizer"}) {
        ASSERT_TRUE(parts.contains(phase)) << phase;
        EXPECT_GT(parts[phase].get<double>(), 0) << phase;
        sum += parts[phase].get<double>();
    }
    EXPECT_EQ(parts["all-reduce"].get<double>(), 0);
    const double step = j["step_device_s"].get<double>();
    std::cout << "step " << step * 1e3 << " ms: " << parts.dump() << "\n";
    EXPECT_NEAR(sum, step, 1e-9 * step);

    const auto text = run_command(train(program, "--steps 1"));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    for (const char* line : {"  forward ", "  backward ", "  accumulation ", "  all-reduce ", "  optimizer "})
        EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
}

// --sequences-per-pass: each micro-batch of four runs in passes of two with its activations spilled to
// device memory. Trained for real in fp32 on the same pairs, it gives the losses of the program that
// keeps the whole micro-batch on chip (up to the order of fp32 sums); the report says the
// activations are in device memory and counts their bytes.
TEST(TrainCli, MicroBatchInPassesTrainsAsTheWholeMicroBatch) {
    ScratchDir dir;
    const fs::path whole_dir = dir / "whole", passes_dir = dir / "passes";
    fs::create_directories(whole_dir);
    fs::create_directories(passes_dir);
    const std::string args = "--micro-batch 4 --dtype fp32";
    const fs::path whole = build_program(whole_dir, args), passes = build_program(passes_dir, args + " --sequences-per-pass 2");
    const fs::path pairs = write_mrpc_pairs(dir.path(), 4);
    std::vector<std::vector<double>> losses;
    nlohmann::json passes_report;
    for (const fs::path& program : {whole, passes}) {
        const auto r = run_command(train(program, "--steps 3 --functional --lr 1e-3 --json --data " + pairs.string()));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        losses.emplace_back();
        for (const auto& step : j["steps"]) losses.back().push_back(step["loss"].get<double>());
        passes_report = j;
    }
    ASSERT_EQ(losses[1].size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(losses[1][i], losses[0][i], 1e-4 * losses[0][i]) << "step " << i + 1;
    EXPECT_GT(passes_report["memory_bytes"]["activations"].get<uint64_t>(), 0u);
    const auto text = run_command(train(passes, "--steps 1"));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("spilled to device memory layer by layer; the micro-batch in passes of 2"), std::string::npos)
        << text.out;
}

// --timing-only leaves every tensor's contents out (no weights are made: a model too big to hold
// builds in the time of its instructions) and changes nothing the engines do: the step takes the
// same simulated time as the program with weights. Training it for real is one line.
TEST(TrainCli, TimingOnlyProgramHasNoWeightsAndTimesTheSame) {
    ScratchDir dir;
    const fs::path full_dir = dir / "with-weights", timing_dir = dir / "timing-only";
    fs::create_directories(full_dir);
    fs::create_directories(timing_dir);
    const std::string args = "--micro-batch 2 --grad-accum 2 --dtype bf16 --stochastic-rounding";
    const fs::path full = build_program(full_dir, args);
    const fs::path timing = build_program(timing_dir, args + " --timing-only");
    std::cout << "program with weights " << fs::file_size(full) << " bytes, timing only " << fs::file_size(timing) << "\n";
    EXPECT_LT(fs::file_size(timing) * 4, fs::file_size(full));  // the 30522-row table alone is 7.8 MB in bf16
    const auto with_weights = run_command(train(full, "--steps 1 --json"));
    const auto without = run_command(train(timing, "--steps 1 --json"));
    ASSERT_EQ(with_weights.exit_code, 0) << with_weights.err;
    ASSERT_EQ(without.exit_code, 0) << without.err;
    const nlohmann::json a = nlohmann::json::parse(with_weights.out), b = nlohmann::json::parse(without.out);
    EXPECT_EQ(a["step_device_s"].get<double>(), b["step_device_s"].get<double>());
    EXPECT_EQ(a["step_breakdown_s"], b["step_breakdown_s"]);
    EXPECT_EQ(a["memory_bytes"], b["memory_bytes"]);  // the tensors are there, without contents
    expect_neuron_sim_user_error(run_command(train(timing, "--steps 1 --functional --data " +
                                                           write_mrpc_pairs(timing_dir, 4).string())),
                                 "built --timing-only");
}

// Dropout is on by default with the config's probabilities (HF's 0.1 when it names none), seeded
// with --seed; --disable-dropout (the script's --disable_dropout) turns it off. The program says which.
TEST(TrainCli, DropoutIsOnByDefaultAndDisableDropoutTurnsItOff) {
    ScratchDir dir;
    for (const bool disabled : {false, true}) {
        const fs::path out = dir / (disabled ? "off.bin" : "on.bin");
        const auto r = run_command(build_train("--model " + write_config(dir.path()).string() + " --seq 32 --timing-only --seed 5" +
                                               (disabled ? " --disable-dropout" : "") + " -o " + out.string()));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.out.find(disabled ? ", no dropout," : ", dropout hidden 0.1 attention 0.1 seed 5,"), std::string::npos)
            << r.out;
        EXPECT_EQ(isa::read_container(isa::read_file(out)).metadata_value("dropout"), disabled ? "off" : "hidden 0.1 attention 0.1 seed 5");
    }
}

// A step is its graphs' executions (training_step.h): the first micro-step once, the accumulating
// micro-step grad_accum - 1 times, the optimizer once. A timing run simulates the first two
// micro-steps and counts the third at the second's time, and says so; the step's time is exactly
// that sum, and the counted execution is what simulating it gives: a functional run, which
// simulates every micro-step, times the accumulating one the same.
TEST(TrainCli, TimingRunComposesTheStepFromTheSimulatedMicroSteps) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 2 --grad-accum 3 --dtype bf16");
    const auto r = run_command(train(program, "--steps 1 --json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const nlohmann::json& c = j["step_composition"];
    EXPECT_EQ(c["formula"], "first micro-step + 2 x micro-step + optimizer");
    ASSERT_EQ(c["graphs"].size(), 3u) << c.dump();
    const std::vector<std::tuple<std::string, uint32_t, uint32_t>> want = {
        {"first micro-step", 1, 1}, {"micro-step", 2, 1}, {"optimizer", 1, 1}};
    double total = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        const nlohmann::json& g = c["graphs"][i];
        EXPECT_EQ(g["graph"], std::get<0>(want[i]));
        EXPECT_EQ(g["executions"], std::get<1>(want[i]));
        EXPECT_EQ(g["simulated"], std::get<2>(want[i]));
        EXPECT_GT(g["device_s"].get<double>(), 0);
        total += g["executions"].get<double>() * g["device_s"].get<double>();
    }
    const double step = j["step_device_s"].get<double>();
    EXPECT_NEAR(step, total, 1e-12 * step);
    const auto functional = run_command(train(program, "--steps 1 --json --functional --data " +
                                                       write_mrpc_pairs(dir.path(), 6).string()));
    ASSERT_EQ(functional.exit_code, 0) << functional.err;
    const nlohmann::json functional_report = nlohmann::json::parse(functional.out);
    const nlohmann::json& every = functional_report["step_composition"]["graphs"];
    EXPECT_EQ(every[1]["simulated"], 2);
    EXPECT_EQ(every[1]["device_s"].get<double>(), c["graphs"][1]["device_s"].get<double>());
    const auto text = run_command(train(program, "--steps 1"));
    EXPECT_NE(text.out.find("1 simulated, the other 1 counted at its time"), std::string::npos) << text.out;
}

// Data parallel on the two cores of a trn1.2xlarge (--cores 2): a functional fine-tune through the
// runtime, each core on its own micro-batch of four pairs, the gradients all-reduced between the
// micro-step and the optimizer: the LOG line per step, the step composed of the micro-step, the
// all-reduce and the optimizer graphs, an all-reduce phase that takes time, and a throughput that
// counts both cores' sequences (8 per step).
TEST(TrainCli, DataParallelFineTuningOnTwoCores) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 4 --dtype fp32 --cores 2 --disable-dropout");
    const fs::path pairs = write_mrpc_pairs(dir.path(), 8);
    const auto text = run_command(train(program, "--steps 1 --functional --data " + pairs.string()));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(std::regex_search(text.out, std::regex(R"(LOG .* - \(0, 1\) step_loss : [0-9.]+  learning_rate : )")))
        << text.out;
    EXPECT_NE(text.out.find("data parallel on 2 cores"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("first micro-step + all-reduce + optimizer"), std::string::npos) << text.out;
    const auto r = run_command(train(program, "--steps 2 --functional --lr 1e-3 --json --data " + pairs.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["cores"].get<uint32_t>(), 2u);
    EXPECT_GT(j["step_breakdown_s"]["all-reduce"].get<double>(), 0);
    EXPECT_NEAR(j["throughput_per_s"].get<double>() * j["step_s"].get<double>(), 8.0, 1e-6);
    EXPECT_GT(j["steps"][0]["loss"].get<double>(), 0.3);
}

// Pretraining data parallel on the 32 cores of a trn1.32xlarge, timing only: the micro-steps and the
// optimizer (no collectives, every device the same streams on its own memory) are simulated on the
// first device's two cores and the other 15 devices take their time; the all-reduce runs on all 32
// ranks. The report says so for each graph, and the step counts every core's sequences.
TEST(TrainCli, ThirtyTwoCoresSimulateOneDeviceAndCountTheOthers) {
    ScratchDir dir;
    const fs::path program = dir / "train32.bin";
    const auto built = run_command(build_train("--task pretrain --model " + write_config(dir.path()).string() +
                                               " --seq 16 --micro-batch 2 --grad-accum 3 --cores 32 --dtype bf16 "
                                               "--stochastic-rounding --timing-only --instance trn1.32xlarge -o " +
                                               program.string()));
    ASSERT_EQ(built.exit_code, 0) << built.err;
    const std::string run = testing::neuron_sim("trn1.32xlarge", "train") + program.string() + " --steps 1";
    const auto r = run_command(run + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["cores"], 32);
    const nlohmann::json& graphs = j["step_composition"]["graphs"];
    ASSERT_EQ(graphs.size(), 4u) << graphs.dump();
    for (const nlohmann::json& g : graphs) {
        const bool all_reduce = g["graph"] == "all-reduce";
        EXPECT_EQ(g["simulated_cores"], all_reduce ? 32 : 2) << g.dump();
        EXPECT_EQ(g["simulated_on"], all_reduce ? "on all 32 cores (nd0-nd15)" : "on nd0 cores 0-1, 15 more devices take its time")
            << g.dump();
    }
    EXPECT_NEAR(j["throughput_per_s"].get<double>() * j["step_s"].get<double>(), 2.0 * 3 * 32, 1e-6);
    const auto text = run_command(run);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("2 x micro-step"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("simulated on nd0 cores 0-1, 15 more devices take its time"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("micro-step on the engines (on nd0 cores 0-1, 15 more devices take its time):"), std::string::npos)
        << text.out;
}

TEST(TrainCli, UserErrorsAreOneLine) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 2");
    // An inference model given to train.
    const fs::path inference = dir / "bert.bin";
    ASSERT_EQ(run_command(testing::neuron_build_bert("--model " + write_config(dir.path()).string() + " --seq 32 --instance " +
                                                     kInstance + " -o " + inference.string()))
                  .exit_code,
              0);
    expect_neuron_sim_user_error(run_command(train(inference, "--steps 1")), "is an inference model");
    // A training program given to the commands that take an inference model says what it is and what runs it.
    const std::string training_program = program.string() + " is a training program (neuron-build bert-train): run it with "
                                                             "neuron-sim train; ";
    expect_neuron_sim_user_error(run_command(testing::neuron_sim(kInstance, "serve") + program.string()),
                                 training_program + "serve needs an inference model (neuron-build bert)");
    expect_neuron_sim_user_error(run_command(testing::neuron_sim(kInstance, "run") + program.string() + " --functional --pairs x.tsv"),
                                 training_program + "--pairs needs an inference model (neuron-build bert)");
    // A data file that does not parse, and one without labels' worth of pairs.
    const fs::path bad = dir / "bad.tsv";
    testing::write_text(bad, "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\nnot a line of five fields\n");
    expect_neuron_sim_user_error(run_command(train(program, "--steps 1 --functional --data " + bad.string())), bad.string());
    expect_neuron_sim_user_error(run_command(train(program, "--steps 1 --data " + bad.string())), "--data needs --functional");
    expect_neuron_sim_user_error(run_command(train(program, "--steps 1 --save " + (dir / "ckpt").string())),
                                 "--save needs --functional");
    expect_neuron_sim_user_error(
        run_command(train(program, "--steps 1 --functional --save " + bad.string() + " --data " + write_mrpc_pairs(dir.path(), 4).string())),
        "exists and is not a directory");
    // A --save directory that cannot be made is said before the step runs (no LOG line), and the
    // check leaves no directory behind when it can.
    const auto unwritable =
        run_command(train(program, "--steps 1 --functional --save /proc/x --data " + write_mrpc_pairs(dir.path(), 4).string()));
    expect_neuron_sim_user_error(unwritable, "--save /proc/x: No such file or directory");
    EXPECT_EQ(unwritable.out.find("LOG"), std::string::npos) << unwritable.out;
    const fs::path nested = dir / "made" / "ckpt";
    expect_neuron_sim_user_error(
        run_command(train(program, "--steps 1 --functional --save " + nested.string() + " --data " + bad.string())), bad.string());
    EXPECT_FALSE(fs::exists(dir / "made"));
    // Builds the program cannot be.
    auto expect_build_error = [&](const std::string& args, const std::string& needle) {
        const auto r = run_command(build_train("--model " + write_config(dir.path()).string() + " --seq 32 " + args + " -o " +
                                               (dir / "x.bin").string()));
        EXPECT_NE(r.exit_code, 0);
        EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    };
    expect_build_error("--instance trn1.2xlarge --cores 4", "trn1.2xlarge has 2");
    expect_build_error("--instance inf1.2xlarge", "inf1.2xlarge's NeuronCore-v1 has no GpSimd engine, which the training kernels use");
    expect_build_error("--instance trn1.32xlarge --cores 3", "trn1.32xlarge runs collectives on 2, 8, 16, 32 ranks");
    expect_build_error("--instance trn1.2xlarge --task pretrain --weights " + dir.path().string(), "not built yet");
    expect_build_error("--instance trn1.2xlarge --task pretrain --max-predictions 40", "exceeds --seq 32");
    expect_build_error("--instance trn1.2xlarge --micro-batch 4 --sequences-per-pass 3", "must divide --micro-batch 4");
    expect_build_error("--instance trn1.2xlarge --tokens-per-chunk 128", "--tokens-per-chunk needs --sequences-per-pass");
    expect_build_error("--instance trn1.2xlarge --sequences-per-pass 1 --tokens-per-chunk 16",
                       "tokens per chunk 16 must be a multiple of 128, the partition tile of NeuronCore-v2, that divides a pass's 32 tokens");
    // A sequence longer than the keys one attention matmul takes (a PSUM bank of fp32 scores).
    const auto long_seq = run_command(build_train("--model " + write_config(dir.path()).string() +
                                                  " --seq 1024 --timing-only --instance trn1.2xlarge -o " + (dir / "x.bin").string()));
    EXPECT_NE(long_seq.exit_code, 0);
    EXPECT_EQ(test::count_lines(long_seq.err), 1) << long_seq.err;
    EXPECT_NE(long_seq.err.find("seq 1024 exceeds the 512 keys one attention matmul of NeuronCore-v2 takes"), std::string::npos)
        << long_seq.err;
    // A layer whose activations SBUF cannot hold even for one sequence (a 64Ki-wide FFN: 128 KiB per
    // partition for one of its tensors); a large micro-batch alone now runs in passes.
    BertConfig wide = small_config();
    wide.num_hidden_layers = 1;
    wide.intermediate_size = 65536;
    const fs::path wide_config = dir / "wide.json";
    std::ofstream(wide_config) << bert_config_to_json(wide).dump(2);
    const auto r = run_command(build_train("--model " + wide_config.string() + " --seq 32 --timing-only --instance " +
                                           kInstance + " -o " + (dir / "x.bin").string()));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("does not fit on one NeuronCore-v2 core, even one sequence at a time"), std::string::npos) << r.err;
}

// The two errors of issue 15's list that come from the machine rather than the files: a training
// program on an instance with too few cores (here one whose header asks for four cores, as a
// four-core data-parallel one does), and a model whose weights,
// gradients and optimizer states exceed the core's share of device memory (refused before its weights
// are made). One line each, naming what.
TEST(TrainCli, MachineTooSmallIsOneLine) {
    ScratchDir dir;
    const fs::path program = build_program(dir.path(), "--micro-batch 2");
    isa::Container four = isa::read_container(isa::read_file(program));
    four.cores_needed = 4;
    const fs::path four_cores = dir / "four-cores.bin";
    isa::write_file(four_cores, isa::write_container(four));
    expect_neuron_sim_user_error(run_command(train(four_cores, "--steps 1")), "needs 4 NeuronCores, trn1.2xlarge has 2");

    BertConfig huge = small_config();  // about 9.7 billion parameters: 136 GiB of state in bf16 with fp32 m, v
    huge.hidden_size = 4096;
    huge.num_hidden_layers = 48;
    huge.num_attention_heads = 32;
    huge.intermediate_size = 16384;
    const fs::path config = dir / "huge.json";
    std::ofstream(config) << bert_config_to_json(huge).dump(2);
    const auto r = run_command(build_train("--model " + config.string() + " --seq 32 --instance trn1.2xlarge -o " +
                                           (dir / "huge.bin").string()));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    for (const char* part : {"huge does not fit in device memory", "weights", "gradients", "optimizer states",
                             "16 GiB of device memory per NeuronCore of trn1.2xlarge"})
        EXPECT_NE(r.err.find(part), std::string::npos) << part << "\n" << r.err;
    EXPECT_FALSE(fs::exists(dir / "huge.bin"));
}

}  // namespace
}  // namespace nsim::kernels
