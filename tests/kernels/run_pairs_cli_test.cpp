// `neuron-sim run bert.bin --functional --pairs FILE --predictions OUT` as a user runs it: real MRPC
// dev pairs through a random-weight Hugging Face checkpoint written here, classified on the simulated
// device through the runtime. The predictions file's logits and classes match the fp32 reference
// forward within the dtype's tolerance; the printed accuracy and F1 are what this test counts from the
// file's labels and the predictions; every user error is one line on stderr with a non-zero exit.
// Also: a neuron-build model for another NeuronCore generation than the instance is refused.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bert/hf_checkpoint.h"
#include "bert/random_weights.h"
#include "common/command_runner.h"
#include "eval/sentence_pairs.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "kernels_test_support.h"
#include "model_cli_support.h"
#include "reference/bert_forward.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::kernels {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using testing::ScratchDir;
using testing::expect_neuron_sim_user_error;
using testing::write_mrpc_pairs;

constexpr size_t kPairs = 8;
constexpr size_t kSeq = 64;  // short enough that some MRPC pairs are truncated

// Small, over the real uncased vocabulary; weights spread wider than BERT's 0.02 so the classes differ.
BertConfig pairs_config() {
    BertConfig c;
    c.vocab_size = 30522;
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 4;
    c.intermediate_size = 256;
    c.max_position_embeddings = kSeq;
    c.initializer_range = 0.1;
    c.label_names = {"not paraphrase", "paraphrase"};
    return c;
}

std::string build(const std::string& args) { return testing::neuron_build_bert(args); }
std::string sim(const std::string& instance) { return testing::neuron_sim(instance, "run"); }

// The random-weight checkpoint directory DIR/ckpt.
void write_checkpoint(const fs::path& dir, const BertConfig& config = pairs_config()) {
    save_hf_checkpoint(dir / "ckpt", random_bert_weights(config, 5));
}

// DIR/NAME built from DIR/ckpt (`args`: neuron-build options besides --weights and -o).
fs::path build_from_checkpoint(const fs::path& dir, const std::string& args, const std::string& name = "bert.bin") {
    const fs::path out = dir / name;
    const auto r = run_command(build("--weights " + (dir / "ckpt").string() + " " + args + " -o " + out.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
}

fs::path build_model(const fs::path& dir, const std::string& args, const BertConfig& config = pairs_config()) {
    write_checkpoint(dir, config);
    return build_from_checkpoint(dir, args);
}

struct PredictionLine {
    size_t index = 0;
    int label = 0;
    float logits[2] = {0, 0};
};

std::vector<PredictionLine> read_predictions(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "index\tprediction\tlogit_0\tlogit_1");
    std::vector<PredictionLine> out;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        PredictionLine p;
        fields >> p.index >> p.label >> p.logits[0] >> p.logits[1];
        EXPECT_FALSE(fields.fail()) << line;
        out.push_back(p);
    }
    return out;
}

// Runs `model` over the first kPairs MRPC dev pairs with --predictions (`extra`: more run options).
struct Classified {
    test::CommandResult run;
    fs::path pairs;
    std::vector<PredictionLine> predictions;
};
Classified classify(const fs::path& dir, const fs::path& model, const std::string& instance, const std::string& extra = "") {
    Classified c;
    c.pairs = write_mrpc_pairs(dir, kPairs);
    c.run = run_command(sim(instance) + model.string() + " --functional " + extra + " --pairs " + c.pairs.string() +
                        " --predictions " + (dir / "out.tsv").string());
    EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
    c.predictions = read_predictions(dir / "out.tsv");
    EXPECT_EQ(c.predictions.size(), kPairs);
    return c;
}

// Logits [pairs, 2] of the fp32 reference forward on the checkpoint, tokenised with `vocab`.
std::vector<float> reference_logits(const fs::path& checkpoint, const fs::path& vocab, const fs::path& pairs_file) {
    const BertWeights weights = load_hf_checkpoint(checkpoint);
    const BertTokenizer tokenizer(WordPieceVocab::load(vocab));
    std::vector<EncodedInput> encoded;
    for (const SentencePair& p : read_sentence_pairs(pairs_file).pairs) encoded.push_back(tokenizer.encode_pair(p.a, p.b, kSeq));
    return reference::bert_forward(weights, make_token_batch(encoded)).logits.values;
}

// Logits within `tolerance` of the reference (relative to its largest); the same class wherever the
// reference's two logits are further apart than that tolerance.
void expect_reference_predictions(const std::vector<PredictionLine>& got, const std::vector<float>& want, double tolerance) {
    ASSERT_EQ(got.size() * 2, want.size());
    double scale = 0;
    for (float v : want) scale = std::max(scale, double(std::fabs(v)));
    size_t decided = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].index, i);
        for (int c = 0; c < 2; ++c) EXPECT_NEAR(got[i].logits[c], want[2 * i + c], tolerance * scale) << "pair " << i;
        const bool reference_class = want[2 * i + 1] > want[2 * i];
        EXPECT_EQ(got[i].label, got[i].logits[1] > got[i].logits[0] ? 1 : 0) << "pair " << i;
        if (std::fabs(want[2 * i + 1] - want[2 * i]) > 2 * tolerance * scale) {
            ++decided;
            EXPECT_EQ(got[i].label, int(reference_class)) << "pair " << i;
        }
    }
    EXPECT_GT(decided, got.size() / 2) << "too few pairs with a clear reference class to compare";
}

struct OwnCount {
    size_t correct = 0;
    double accuracy = 0, f1 = 0;
};

// Accuracy and F1 of label 1, counted here from the pairs file's labels and the predictions.
OwnCount count_metrics(const fs::path& pairs_file, const std::vector<PredictionLine>& predictions) {
    const std::vector<SentencePair> pairs = read_sentence_pairs(pairs_file).pairs;
    size_t tp = 0, fp = 0, fn = 0;
    OwnCount count;
    for (size_t i = 0; i < pairs.size(); ++i) {
        const int label = *pairs[i].label, predicted = predictions.at(i).label;
        count.correct += label == predicted;
        tp += label == 1 && predicted == 1;
        fp += label == 0 && predicted == 1;
        fn += label == 1 && predicted == 0;
    }
    count.accuracy = double(count.correct) / double(pairs.size());
    count.f1 = tp ? 2.0 * double(tp) / double(2 * tp + fp + fn) : 0.0;
    return count;
}

TEST(RunPairs, HostEmbeddingFp32OnEveryCopyMatchesTheReferenceAndCountsItsMetrics) {
    ScratchDir dir;
    // 2 copies x batch 3: 8 pairs take 2 executions, the second padded with 4 dummy sequences.
    const fs::path model = build_model(dir.path(), "--seq 64 --batch 3 --cores 2 --dtype fp32 --embedding host --instance trn1.2xlarge");
    const Classified c = classify(dir.path(), model, "trn1.2xlarge");
    expect_reference_predictions(c.predictions, reference_logits(dir / "ckpt", testing::vocab_path(), c.pairs), 1e-4);

    const OwnCount own = count_metrics(c.pairs, c.predictions);
    const std::string& out = c.run.out;
    EXPECT_NE(out.find(fmt::format("accuracy   {:.2f} %  ({} of {} pairs)", 100 * own.accuracy, own.correct, kPairs)),
              std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("F1         {:.4f}", own.f1)), std::string::npos) << out;
    EXPECT_NE(out.find("classified 8 sentence pairs"), std::string::npos) << out;
    EXPECT_NE(out.find("2 executions (4 padding sequences not counted)"), std::string::npos) << out;
    EXPECT_NE(out.find("simulated  device "), std::string::npos) << out;
}

TEST(RunPairs, DeviceEmbeddingBf16PipelineJsonAndTraceMatchTheReference) {
    ScratchDir dir;
    // Pipeline over 2 cores, batch 3: 3 executions, the last with 1 dummy sequence.
    const fs::path model = build_model(
        dir.path(), "--seq 64 --batch 3 --cores 2 --parallel pipeline --dtype bf16 --embedding device --instance inf2.xlarge");
    const Classified c = classify(dir.path(), model, "inf2.xlarge", "--json --trace " + (dir / "trace.json").string());
    expect_reference_predictions(c.predictions, reference_logits(dir / "ckpt", testing::vocab_path(), c.pairs), 6e-2);

    const nlohmann::json j = nlohmann::json::parse(c.run.out);
    const OwnCount own = count_metrics(c.pairs, c.predictions);
    EXPECT_EQ(j["pairs"], kPairs);
    EXPECT_EQ(j["executions"], 3);
    EXPECT_EQ(j["padding_sequences"], 1);
    EXPECT_GT(j["truncated"].get<int>(), 0);
    EXPECT_DOUBLE_EQ(j["accuracy"].get<double>(), own.accuracy);
    EXPECT_DOUBLE_EQ(j["f1"].get<double>(), own.f1);
    EXPECT_GT(j["device_time_ms"].get<double>(), 0.0);
    EXPECT_GT(j["end_to_end_ms"].get<double>(), j["device_time_ms"].get<double>());
    // --trace writes the last execution.
    std::ifstream trace_file(dir / "trace.json");
    const nlohmann::json trace = nlohmann::json::parse(trace_file);
    size_t slices = 0;
    for (const auto& e : trace["traceEvents"]) slices += e["ph"] == "X";
    EXPECT_GT(slices, 0u);
}

// BERT-base's width: the host-side tables (30522 x 768 fp32, 94 MB) are far larger than the driver's
// 32 MiB host memory pool, so they must stay out of what the runtime loads.
TEST(RunPairs, BertBaseWideHostEmbeddingTablesStayOnTheHost) {
    ScratchDir dir;
    BertConfig wide = pairs_config();
    wide.hidden_size = 768;
    wide.num_hidden_layers = 1;
    wide.num_attention_heads = 12;
    wide.intermediate_size = 256;
    const fs::path model = build_model(dir.path(), "--seq 64 --batch 4 --dtype fp32 -i trn1.2xlarge", wide);
    EXPECT_GT(fs::file_size(dir / "bert.embeddings.safetensors"), 64u << 20);
    EXPECT_LT(fs::file_size(model), 40u << 20);
    const Classified c = classify(dir.path(), model, "trn1.2xlarge");
    expect_reference_predictions(c.predictions, reference_logits(dir / "ckpt", testing::vocab_path(), c.pairs), 1e-4);
}

// A checkpoint with its own vocab.txt: neuron-build records it and the run tokenizes with it (here the
// first 6000 tokens only, so rarer words become [UNK] and the logits differ from the default
// vocabulary's).
TEST(RunPairs, TheCheckpointsOwnVocabularyIsUsed) {
    ScratchDir dir;
    write_checkpoint(dir.path());
    {
        std::ifstream in(testing::vocab_path());
        std::ofstream out(dir / "ckpt" / "vocab.txt");
        std::string line;
        for (int i = 0; i < 6000 && std::getline(in, line); ++i) out << line << "\n";
    }
    const fs::path model = build_from_checkpoint(dir.path(), "--seq 64 --batch 8 --dtype fp32 -i trn1.2xlarge");
    EXPECT_EQ(isa::read_container(isa::read_file(model)).metadata_value("vocab"), (dir / "ckpt" / "vocab.txt").string());
    const Classified c = classify(dir.path(), model, "trn1.2xlarge");
    expect_reference_predictions(c.predictions, reference_logits(dir / "ckpt", dir / "ckpt" / "vocab.txt", c.pairs), 1e-4);
    const std::vector<float> with_default = reference_logits(dir / "ckpt", testing::vocab_path(), c.pairs);
    EXPECT_GT(std::fabs(c.predictions.at(0).logits[0] - with_default[0]), 1e-3) << "the default vocabulary was used";
}

// Errors. Each needs only a cheap model: the checks come before the model loads.
class RunPairsErrors : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = build_model(dir_.path(), "--seq 16 --dtype fp32 -i trn1.2xlarge");
        pairs_ = write_mrpc_pairs(dir_.path(), 2);
    }
    std::string run(const std::string& args) const { return sim("trn1.2xlarge") + model_.string() + " " + args; }

    ScratchDir dir_;
    fs::path model_, pairs_;
};

TEST_F(RunPairsErrors, PairsWithoutFunctional) {
    expect_neuron_sim_user_error(run_command(run("--pairs " + pairs_.string())), "--pairs requires --functional");
}

TEST_F(RunPairsErrors, PairsOnATimingOnlyModel) {
    const fs::path timing = dir_ / "timing.bin";
    ASSERT_EQ(run_command(build("--model bert-base --seq 16 --timing-only -i trn1.2xlarge -o " + timing.string())).exit_code, 0);
    expect_neuron_sim_user_error(run_command(sim("trn1.2xlarge") + timing.string() + " --functional --pairs " + pairs_.string()),
                      "built --timing-only");
}

TEST_F(RunPairsErrors, PairsOnABareProgram) {
    const fs::path bare = dir_ / "bare.bin";
    isa::write_file(bare, isa::write_container(isa::assemble(".target v2\n.cores 1\n.core 0\nact nop\n", "bare").container));
    expect_neuron_sim_user_error(run_command(sim("trn1.2xlarge") + bare.string() + " --functional --pairs " + pairs_.string()),
                      "needs a BERT model built by neuron-build");
}

TEST_F(RunPairsErrors, MissingPairsFile) {
    expect_neuron_sim_user_error(run_command(run("--functional --pairs " + (dir_ / "nope.tsv").string())),
                      (dir_ / "nope.tsv").string() + ": cannot open");
}

TEST_F(RunPairsErrors, MalformedLineNamesFileAndLine) {
    testing::write_text(dir_ / "bad.tsv", "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA.\tB.\n1\tonly two\n");
    expect_neuron_sim_user_error(run_command(run("--functional --pairs " + (dir_ / "bad.tsv").string())),
                      (dir_ / "bad.tsv").string() + ":3: expected 5 tab-separated fields, found 2");
}

TEST_F(RunPairsErrors, FileWithoutPairs) {
    testing::write_text(dir_ / "empty.tsv", "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n");
    expect_neuron_sim_user_error(run_command(run("--functional --pairs " + (dir_ / "empty.tsv").string())), "no sentence pairs");
}

TEST_F(RunPairsErrors, UnwritablePredictions) {
    expect_neuron_sim_user_error(run_command(run("--functional --pairs " + pairs_.string() + " --predictions /nonexistent/dir/out.tsv")),
                      "/nonexistent/dir/out.tsv: cannot create the predictions file");
}

TEST_F(RunPairsErrors, MissingVocabulary) {
    expect_neuron_sim_user_error(run_command(run("--functional --pairs " + pairs_.string() + " --vocab " + (dir_ / "nope.txt").string())),
                      (dir_ / "nope.txt").string() + ": cannot open the vocabulary: No such file or directory");
}

TEST_F(RunPairsErrors, RecordedCheckpointVocabularyGone) {
    fs::copy_file(testing::vocab_path(), dir_ / "ckpt" / "vocab.txt");
    const fs::path model = build_from_checkpoint(dir_.path(), "--seq 16 -i trn1.2xlarge", "with_vocab.bin");
    fs::remove(dir_ / "ckpt" / "vocab.txt");
    expect_neuron_sim_user_error(run_command(sim("trn1.2xlarge") + model.string() + " --functional --pairs " + pairs_.string()),
                      "vocabulary that neuron-build recorded is gone");
}

TEST_F(RunPairsErrors, VocabularyLargerThanTheModelsWordTable) {
    BertConfig small = pairs_config();
    small.vocab_size = 1000;
    const fs::path model = build_model(dir_ / "small", "--seq 16 -i trn1.2xlarge", small);
    expect_neuron_sim_user_error(run_command(sim("trn1.2xlarge") + model.string() + " --functional --pairs " + pairs_.string()),
                      "30522 tokens, but the model's word table has 1000 rows");
}

TEST_F(RunPairsErrors, ModelOverSeveralDevicesIsRefusedForFunctionalRuns) {
    // 8 copies on inf1.6xlarge span two devices; the second device's rows would not come back.
    BertConfig small = pairs_config();
    small.vocab_size = 1000;
    const fs::path model = build_model(dir_ / "wide", "--seq 16 --cores 8 -i inf1.6xlarge", small);
    expect_neuron_sim_user_error(run_command(sim("inf1.6xlarge") + model.string() + " --functional"),
                                 "functional runs of a model over 2 devices are not supported");
    // Timing runs of it work.
    EXPECT_EQ(run_command(sim("inf1.6xlarge") + model.string()).exit_code, 0);
}

TEST_F(RunPairsErrors, HostEmbeddingModelWithoutTables) {
    const fs::path model = dir_ / "tiny.bin";
    ASSERT_EQ(run_command(build("--weights " + testing::shared_data("bert-tiny-sst2-fhe").string() +
                                " --seq 16 -i trn1.2xlarge -o " + model.string())).exit_code, 0);
    expect_neuron_sim_user_error(run_command(sim("trn1.2xlarge") + model.string() + " --functional --pairs " + pairs_.string()),
                      "has no embedding tables");
}

TEST_F(RunPairsErrors, HostEmbeddingTablesOfAnotherModel) {
    BertConfig other_config = pairs_config();
    other_config.vocab_size = 31000;
    const fs::path other = dir_ / "other";
    build_model(other, "--seq 16 -i trn1.2xlarge", other_config);
    fs::copy_file(other / "bert.embeddings.safetensors", dir_ / "bert.embeddings.safetensors",
                  fs::copy_options::overwrite_existing);
    expect_neuron_sim_user_error(run_command(run("--functional --pairs " + pairs_.string())),
                      "not the embedding tables this model was built with");
}

TEST_F(RunPairsErrors, HostEmbeddingTablesNoLongerNextToTheModel) {
    fs::create_directories(dir_ / "moved");
    fs::rename(model_, dir_ / "moved" / "bert.bin");
    expect_neuron_sim_user_error(run_command(sim("trn1.2xlarge") + (dir_ / "moved" / "bert.bin").string() + " --functional --pairs " +
                                  pairs_.string()),
                      (dir_ / "moved" / "bert.embeddings.safetensors").string() + ": missing");
}

TEST(RunBuiltModel, ModelForAnotherGenerationIsAnError) {
    ScratchDir dir;
    const fs::path model = dir / "v2.bin";
    ASSERT_EQ(run_command(build("--model bert-base --seq 16 --timing-only -i inf2.xlarge -o " + model.string())).exit_code, 0);
    expect_neuron_sim_user_error(run_command(sim("inf1.2xlarge") + model.string()),
                      "the program is for NeuronCore-v2, inf1.2xlarge has NeuronCore-v1");
}

}  // namespace
}  // namespace nsim::kernels
