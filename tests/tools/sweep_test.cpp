// `neuron-sim sweep` as a user runs it (issue 17 item 3): a grid of small points (a 2-layer
// hidden-128 BERT on inf1 and trn1, BERT-base inference on trn1, tiny fine-tuning on trn1) plus bad
// ones; the same CSV without MPI and under `mpirun -np 2` (host_s aside); a bad point is a row with
// its error; an interrupted sweep resumes from its CSV; the plot; one-line errors for the sweep file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/command_runner.h"
#include "common/temp_directory.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

// google/bert_uncased_L-2_H-128_A-2's shape (bert-tiny).
constexpr const char* kTinyConfig = R"({"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
  "intermediate_size": 512, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2, "num_labels": 2})";

// 15 points: 12 that run, 3 that fail (a core count the instance lacks, a dtype bert-train does not take,
// batch 0).
constexpr const char* kGrid = R"(iterations: 2
grids:
  - task: inference
    instance: [inf1.xlarge, trn1.2xlarge]
    model: tiny.json
    seq: [16, 32]
    batch: [1, 2]
  - task: inference
    instance: trn1.2xlarge
    model: bert-base
    seq: 128
    batch: [1, 4]
  - task: classify
    instance: trn1.2xlarge
    model: tiny.json
    seq: 32
    batch: [1, 2, 0]
  - instance: trn1.2xlarge
    model: tiny.json
    seq: 16
    cores: 3
    batch: 1
  - task: classify
    instance: trn1.2xlarge
    model: tiny.json
    dtype: mixed
    seq: 16
    batch: 1
)";

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The CSV without its last column, host_s (the only one that depends on the host's speed).
std::string without_host_seconds(const std::string& csv) {
    std::string out;
    for (const std::string& line : lines_of(csv)) out += line.substr(0, line.rfind(',')) + "\n";
    return out;
}

// The field of a line's column (no field before it is quoted in these rows).
std::string field(const std::string& line, size_t column) {
    std::istringstream in(line);
    std::string f;
    for (size_t i = 0; i <= column; ++i) std::getline(in, f, ',');
    return f;
}

class Sweep : public ::testing::Test {
protected:
    void SetUp() override {
        write_file(dir_.path() / "tiny.json", kTinyConfig);
        write_file(dir_.path() / "grid.yaml", kGrid);
    }
    // `command` run in the test's directory (run_command puts its environment first: env VAR=... sh -c '...').
    test::CommandResult in_directory(const std::string& command, const std::string& env = "") {
        return test::run_command("/bin/sh -c 'cd " + dir_.path().string() + " && " + command + "'", env);
    }
    test::CommandResult sweep(const std::string& arguments, const std::string& env = "") {
        return in_directory(test::tool_path("neuron-sim") + " sweep " + arguments, env);
    }
    fs::path path(const std::string& name) const { return dir_.path() / name; }

    test::TempDirectory dir_;
};

// Columns of the header (sweep_table.h).
constexpr size_t kTask = 0, kCores = 4, kBatch = 7, kThroughput = 10, kMfu = 11, kPeBusy = 12, kBuildCommand = 18, kRunCommand = 19;

TEST_F(Sweep, FifteenPointsGiveTheSameCsvWithoutMpiAndOnTwoMpiRanks) {
    // 3 points fail: the CSV is written and the exit code says so.
    const auto alone = sweep("grid.yaml -o alone.csv --no-plot");
    ASSERT_EQ(alone.exit_code, 1) << alone.err;
    EXPECT_NE(alone.out.find("15 points, 0 already in alone.csv, 15 to run on 1 rank(s)"), std::string::npos) << alone.out;
    // As CI runs it: as root, two ranks on a machine of two cores.
    const auto mpi = in_directory(std::string(NSIM_MPIEXEC) + " --oversubscribe -np 2 " + test::tool_path("neuron-sim") +
                                      " sweep grid.yaml -o ranks.csv --no-plot",
                                  "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    ASSERT_NE(mpi.exit_code, 0) << mpi.err;
    EXPECT_NE(mpi.err.find("3 of 15 points failed"), std::string::npos) << mpi.err;
    EXPECT_NE(mpi.out.find("15 to run on 2 rank(s)"), std::string::npos) << mpi.out;

    const std::string csv = read_file(path("alone.csv"));
    EXPECT_EQ(without_host_seconds(read_file(path("ranks.csv"))), without_host_seconds(csv));
    const std::vector<std::string> lines = lines_of(csv);
    ASSERT_EQ(lines.size(), 16u) << csv;
    EXPECT_EQ(lines[0].rfind("task,instance,model,dtype,cores,seq,grad_accum,batch,latency_ms,step_ms,throughput_per_s,mfu_pct,", 0), 0u);
    // Grid order: the first grid's points, batch varying fastest, then the next grids.
    EXPECT_EQ(lines[1].rfind("inference,inf1.xlarge,tiny.json,mixed,1,16,,1,", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("inference,inf1.xlarge,tiny.json,mixed,1,16,,2,", 0), 0u) << lines[2];
    EXPECT_EQ(lines[9].rfind("inference,trn1.2xlarge,bert-base,mixed,1,128,,1,", 0), 0u) << lines[9];
    EXPECT_EQ(lines[11].rfind("classify,trn1.2xlarge,tiny.json,bf16,1,32,1,1,", 0), 0u) << lines[11];
    for (size_t i = 1; i <= 12; ++i) {
        SCOPED_TRACE(lines[i]);
        EXPECT_GT(std::stod(field(lines[i], kThroughput)), 0);
        EXPECT_GT(std::stod(field(lines[i], kMfu)), 0);
        EXPECT_GT(std::stod(field(lines[i], kPeBusy)), 0);
    }
    // More sequences per execution, more sequences per second, on every series measured here.
    EXPECT_GT(std::stod(field(lines[2], kThroughput)), std::stod(field(lines[1], kThroughput)));
    EXPECT_GT(std::stod(field(lines[10], kThroughput)), std::stod(field(lines[9], kThroughput)));
    EXPECT_GT(std::stod(field(lines[12], kThroughput)), std::stod(field(lines[11], kThroughput)));
    // The commands that make the row by hand.
    EXPECT_NE(lines[11].find(",neuron-build bert-train --task classify --model tiny.json --seq 32 --micro-batch 1 --grad-accum 1 "
                             "--cores 1 --dtype bf16 --timing-only --instance trn1.2xlarge -o tiny-trn1.2xlarge-classify-bf16-c1-s32-ga1-b1.bin,"
                             "neuron-sim --instance trn1.2xlarge train tiny-trn1.2xlarge-classify-bf16-c1-s32-ga1-b1.bin --steps 1,"),
              std::string::npos) << lines[11];
}

// The throughput a report line "throughput   N ..." gives.
double reported_throughput(const std::string& report) {
    const size_t at = report.find("\nthroughput ");
    return at == std::string::npos ? -1 : std::stod(report.substr(at + 12));
}

TEST_F(Sweep, EachRowsCommandsReproduceIt) {
    write_file(path("two.yaml"), "grids:\n  - instance: inf1.xlarge\n    model: tiny.json\n    seq: 16\n    batch: 2\n"
                                 "  - task: classify\n    instance: trn1.2xlarge\n    model: tiny.json\n    seq: 32\n    batch: 2\n");
    ASSERT_EQ(sweep("two.yaml --no-plot").exit_code, 0);
    const std::vector<std::string> lines = lines_of(read_file(path("two.csv")));
    ASSERT_EQ(lines.size(), 3u);
    const std::string tools = fs::path(test::tool_path("neuron-sim")).parent_path().string();
    for (size_t i = 1; i <= 2; ++i) {
        SCOPED_TRACE(lines[i]);
        // The commands are plain words here (no quoting), so the columns split at commas.
        const auto built = in_directory("PATH=" + tools + ":$PATH " + field(lines[i], kBuildCommand));
        ASSERT_EQ(built.exit_code, 0) << built.err;
        const auto ran = in_directory("PATH=" + tools + ":$PATH " + field(lines[i], kRunCommand));
        ASSERT_EQ(ran.exit_code, 0) << ran.err;
        EXPECT_NEAR(reported_throughput(ran.out), std::stod(field(lines[i], kThroughput)), 0.06) << ran.out;
    }
}

TEST_F(Sweep, ABadPointIsARowWithItsErrorAndTheOthersRun) {
    const auto r = sweep("grid.yaml --no-plot");
    // Written in full, then exit code 1 and one line on stderr for a script to see.
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "neuron-sim sweep: 3 of 15 points failed (their rows in grid.csv say why)\n");
    EXPECT_NE(r.out.find("wrote grid.csv: 15 rows, 3 with an error"), std::string::npos) << r.out;
    const std::vector<std::string> lines = lines_of(read_file(path("grid.csv")));
    ASSERT_EQ(lines.size(), 16u);
    // batch 0, 3 cores of a 2-core instance, a dtype bert-train does not take: each its build's own one-line message,
    // nothing measured.
    EXPECT_EQ(field(lines[13], kBatch), "0");
    EXPECT_NE(lines[13].find(",,,,,,,,,,batch (the micro-batch) '0' is not a whole number from 1 to 65536,"), std::string::npos)
        << lines[13];
    EXPECT_EQ(field(lines[14], kCores), "3");
    EXPECT_NE(lines[14].find(",\"3 cores asked, trn1.2xlarge has 2\",neuron-build bert "), std::string::npos) << lines[14];
    EXPECT_EQ(field(lines[15], kTask), "classify");
    EXPECT_NE(lines[15].find(",\"unknown --dtype 'mixed' (bf16, fp32)\","), std::string::npos) << lines[15];
    EXPECT_NE(r.out.find("[15/15] classify trn1.2xlarge tiny mixed cores 1 seq 16 accum 1 batch 1: error: unknown --dtype 'mixed'"),
              std::string::npos) << r.out;
}

// A pretraining point on the 32 cores of a trn1.32xlarge (its devices but the first counted, not
// simulated: driver/runtime/replicated_devices.h) runs, and its engines are as busy as on two cores
// of the same instance: the busy percentages are per simulated core, not diluted by the counted ones.
TEST_F(Sweep, ATrainingPointOnTrn1_32xlargeRunsOnAll32Cores) {
    write_file(path("large.yaml"), "task: pretrain\ninstance: trn1.32xlarge\nmodel: tiny.json\nseq: 16\nbatch: 2\n"
                                   "grad_accum: 2\ncores: [2, 32]\n");
    const auto r = sweep("large.yaml --no-plot");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> lines = lines_of(read_file(path("large.csv")));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(field(lines[2], kCores), "32") << lines[2];
    EXPECT_NE(field(lines[2], kBuildCommand).find("--cores 32 "), std::string::npos) << lines[2];
    const double two = std::stod(field(lines[1], kPeBusy)), all = std::stod(field(lines[2], kPeBusy));
    EXPECT_GT(all, 0.8 * two) << lines[1] << "\n" << lines[2];
    EXPECT_GT(std::stod(field(lines[2], kThroughput)), 8 * std::stod(field(lines[1], kThroughput))) << lines[2];
}

TEST_F(Sweep, AnInterruptedSweepResumesFromItsCsv) {
    write_file(path("small.yaml"), "instance: trn1.2xlarge\nmodel: tiny.json\nseq: 16\nbatch: [1, 2, 4, 8]\n");
    ASSERT_EQ(sweep("small.yaml --no-plot").exit_code, 0);
    const std::string complete = read_file(path("small.csv"));
    const std::vector<std::string> lines = lines_of(complete);
    ASSERT_EQ(lines.size(), 5u);
    // Interrupted: batch 1 and 4 done, batch 8's line cut half way, batch 2 never started.
    write_file(path("small.csv"), lines[0] + "\n" + lines[3] + "\n" + lines[1] + "\n" + lines[4].substr(0, 40));
    const auto resumed = sweep("small.yaml --no-plot");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.out.find("4 points, 2 already in small.csv, 2 to run"), std::string::npos) << resumed.out;
    EXPECT_NE(resumed.out.find("[1/2] inference trn1.2xlarge tiny mixed cores 1 seq 16 batch 2:"), std::string::npos) << resumed.out;
    EXPECT_NE(resumed.out.find("[2/2] inference trn1.2xlarge tiny mixed cores 1 seq 16 batch 8:"), std::string::npos) << resumed.out;
    // Back in grid order; the rows kept are the very rows of the first run (their host_s too).
    const std::vector<std::string> after = lines_of(read_file(path("small.csv")));
    ASSERT_EQ(after.size(), 5u);
    EXPECT_EQ(after[1], lines[1]);
    EXPECT_EQ(after[3], lines[3]);
    EXPECT_EQ(without_host_seconds(read_file(path("small.csv"))), without_host_seconds(complete));
    // Nothing left to run.
    const auto again = sweep("small.yaml --no-plot");
    EXPECT_NE(again.out.find("4 points, 4 already in small.csv, 0 to run"), std::string::npos) << again.out;
}

TEST_F(Sweep, PlotsThroughputAgainstBatchWithGnuplot) {
    write_file(path("two.yaml"), "title: tiny on two instances\ninstance: [inf1.xlarge, trn1.2xlarge]\nmodel: tiny.json\n"
                                 "seq: 16\nbatch: [1, 2, 4]\n");
    const auto r = sweep("two.yaml --plot two-series.png");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("plot: two-series.png (gnuplot script two-series.gp)"), std::string::npos) << r.out;
    EXPECT_EQ(read_file(path("two-series.png")).substr(1, 3), "PNG");
    const std::string script = read_file(path("two-series.gp"));
    EXPECT_NE(script.find("set title 'tiny on two instances'"), std::string::npos) << script;
    // One series per instance (the only parameter that differs), batch against throughput.
    EXPECT_NE(script.find("title 'inf1.xlarge'"), std::string::npos) << script;
    EXPECT_NE(script.find("title 'trn1.2xlarge'"), std::string::npos) << script;
    EXPECT_NE(script.find("$series1 << EOD\n1 "), std::string::npos) << script;
}

TEST_F(Sweep, WithoutGnuplotItSaysSoInOneLineAndWritesTheCsv) {
    write_file(path("one.yaml"), "instance: inf1.xlarge\nmodel: tiny.json\nseq: 16\nbatch: 1\n");
    const auto r = in_directory("PATH=/nonexistent " + test::tool_path("neuron-sim") + " sweep one.yaml");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("neuron-sim sweep: no plot: gnuplot is not installed (Debian: apt-get install gnuplot-nox)"),
              std::string::npos) << r.err;
    EXPECT_EQ(lines_of(read_file(path("one.csv"))).size(), 2u);
    EXPECT_FALSE(fs::exists(path("one.png")));
}

struct BadSweep {
    const char* name;
    const char* yaml;
    const char* message;
};

void PrintTo(const BadSweep& bad, std::ostream* out) { *out << bad.name; }

class BadSweepFile : public Sweep, public ::testing::WithParamInterface<BadSweep> {};

TEST_P(BadSweepFile, IsOneLineAndNoPointRuns) {
    write_file(path("bad.yaml"), GetParam().yaml);
    const auto r = sweep("bad.yaml");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(path("bad.csv")));
}

INSTANTIATE_TEST_SUITE_P(
    Sweep, BadSweepFile,
    ::testing::Values(
        BadSweep{"NotYaml", "instance: [trn1.2xlarge\nbatch: 1\n", "neuron-sim: bad.yaml:2:6: not YAML: end of sequence flow not found"},
        BadSweep{"UnknownKey", "instance: trn1.2xlarge\nmodel: bert-base\nbatch: 1\nbatchsize: 2\n",
                 "neuron-sim: bad.yaml:4: unknown key 'batchsize' (known: task, instance, model, dtype, cores, seq, grad_accum, "
                 "batch, grids, iterations, steps, title)"},
        BadSweep{"UnknownKeyInAGrid", "grids:\n  - instance: trn1.2xlarge\n    model: bert-base\n    batch: 1\n    steps: 2\n",
                 "neuron-sim: bad.yaml:5: unknown key 'steps' (known: task, instance, model, dtype, cores, seq, grad_accum, batch)"},
        BadSweep{"UnknownInstance", "instance: [trn1.2xlarge, trn9.huge]\nmodel: bert-base\nbatch: 1\n",
                 "neuron-sim: bad.yaml:1: unknown instance 'trn9.huge' (known: "},
        BadSweep{"UnknownDtype", "instance: trn1.2xlarge\nmodel: bert-base\ndtype: [bf16, fp64]\nbatch: 1\n",
                 "neuron-sim: bad.yaml:3: unknown dtype 'fp64' (known: fp32, bf16, fp16, mixed, mixed-bf16 for inference; "
                 "bf16, fp32 for training)"},
        BadSweep{"UnknownTask", "grids:\n  - task: infer\n    instance: trn1.2xlarge\n    model: bert-base\n    batch: 1\n",
                 "neuron-sim: bad.yaml:2: unknown task 'infer' (known: inference, classify, pretrain)"},
        BadSweep{"NoBatch", "instance: trn1.2xlarge\nmodel: bert-base\n", "neuron-sim: bad.yaml:1: the grid has no 'batch'"},
        BadSweep{"MapForAValue", "instance: trn1.2xlarge\nmodel: bert-base\nbatch: {a: 1}\n",
                 "neuron-sim: bad.yaml:3: 'batch' must be a value or a list of values"},
        BadSweep{"NotAMap", "- 1\n- 2\n", "neuron-sim: bad.yaml: a sweep is a map of keys"},
        BadSweep{"BadIterations", "iterations: many\ninstance: trn1.2xlarge\nmodel: bert-base\nbatch: 1\n",
                 "neuron-sim: bad.yaml:1: 'iterations' must be a whole number from 1 to 1000000"}),
    [](const auto& info) { return std::string(info.param.name); });

// Rank 0 finds the mistake and says it once; the other ranks stop with it instead of waiting for points.
TEST_F(Sweep, UnderMpiAMistakeRankZeroFindsStopsEveryRank) {
    write_file(path("one.yaml"), "instance: inf1.xlarge\nmodel: tiny.json\nseq: 16\nbatch: 1\n");
    write_file(path("other.csv"), "name,value\n");
    const auto r = in_directory(std::string(NSIM_MPIEXEC) + " --oversubscribe -np 2 " + test::tool_path("neuron-sim") +
                                    " sweep one.yaml -o other.csv",
                                "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    EXPECT_NE(r.exit_code, 0);
    const std::string line = "neuron-sim: other.csv: not a sweep CSV of this neuron-sim";
    ASSERT_NE(r.err.find(line), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(line, r.err.find(line) + 1), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST_F(Sweep, AMissingSweepFileOrAForeignCsvIsOneLine) {
    const auto missing = sweep("nothere.yaml");
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_EQ(test::count_lines(missing.err), 1) << missing.err;
    EXPECT_NE(missing.err.find("nothere.yaml"), std::string::npos) << missing.err;

    write_file(path("one.yaml"), "instance: inf1.xlarge\nmodel: tiny.json\nseq: 16\nbatch: 1\n");
    write_file(path("other.csv"), "name,value\na,1\n");
    const auto foreign = sweep("one.yaml -o other.csv");
    EXPECT_EQ(foreign.exit_code, 1);
    EXPECT_EQ(test::count_lines(foreign.err), 1) << foreign.err;
    EXPECT_NE(foreign.err.find("other.csv: not a sweep CSV of this neuron-sim"), std::string::npos) << foreign.err;
    EXPECT_EQ(read_file(path("other.csv")), "name,value\na,1\n");
}

}  // namespace
}  // namespace nsim
