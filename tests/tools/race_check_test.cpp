// `neuron-sim check` and `run --check` as a user runs them: the shipped examples and neuron-build's
// programs are clean; the tiled GEMM example with one semaphore wait removed, or with a tensor placed
// over another, is flagged with both instructions (or both tensors) named.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/command_runner.h"
#include "common/temp_directory.h"

namespace nsim {
namespace {

const std::string kExamples = std::string(NSIM_CONFIG_DIR) + "/../isa/examples/";

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class RaceCheck : public ::testing::Test {
protected:
    // Assembles `source` text into DIR/name.bin and returns its path.
    std::string assemble(const std::string& name, const std::string& source) {
        const std::string s = (dir_.path() / (name + ".s")).string(), bin = (dir_.path() / (name + ".bin")).string();
        std::ofstream(s) << source;
        const auto r = test::run_command(test::tool_path("neuron-as") + " " + s + " -o " + bin);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return bin;
    }
    test::CommandResult check(const std::string& bin) { return test::run_command(test::tool_path("neuron-sim") + " check " + bin); }
    // The GEMM example with `from` replaced by `to` (which must be there).
    std::string gemm_with(const std::string& from, const std::string& to) {
        std::string text = read_text(kExamples + "tiled_gemm_double_buffered.s");
        const size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return text.replace(at, from.size(), to);
    }

    test::TempDirectory dir_;
};

TEST_F(RaceCheck, ShippedExamplesAreClean) {
    for (const char* name : {"tiled_gemm_double_buffered", "layernorm_softmax", "collectives_two_cores"}) {
        const auto r = check(assemble(name, read_text(kExamples + name + ".s")));
        EXPECT_EQ(r.exit_code, 0) << name << ":\n" << r.out << r.err;
        EXPECT_NE(r.out.find("clean"), std::string::npos) << r.out;
    }
}

TEST_F(RaceCheck, NeuronBuildProgramsAreClean) {
    const auto dir = dir_.path();
    std::ofstream(dir / "config.json") << R"({"vocab_size": 120, "hidden_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 64})";
    for (const std::string options : {"--seq 16 --batch 1 --cores 1 --dtype fp32", "--seq 32 --batch 2 --cores 2 --dtype bf16",
                                      "--seq 16 --batch 1 --cores 2 --parallel pipeline --dtype bf16"}) {
        const std::string model = (dir / "model.bin").string();
        const auto built = test::run_command(test::tool_path("neuron-build") + " bert --model " + (dir / "config.json").string() +
                                             " " + options + " --instance inf2.xlarge -o " + model);
        ASSERT_EQ(built.exit_code, 0) << options << ": " << built.err;
        const auto r = check(model);
        EXPECT_EQ(r.exit_code, 0) << options << ":\n" << r.out << r.err;
    }
}

// Without the wait for both matmuls of column tile 0, ACT may read PSUM bank 0 while PE still writes it.
TEST_F(RaceCheck, TheGemmWithOneWaitRemovedIsFlagged) {
    const std::string racy = gemm_with("reduce_dst=none, wait=mm_done>=2, signal=evacuated", "reduce_dst=none, signal=evacuated");
    const auto r = check(assemble("racy", racy));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    // A line names the PSUM bank and both instructions: the second matmul into bank 0, the evacuation.
    const size_t at = r.out.find("race on PSUM partition 0 byte 0: ");
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string first = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(first.find("race on PSUM partition 0 byte 0: "), std::string::npos) << r.out;
    EXPECT_NE(first.find("core 0 pe #1 (matmul)"), std::string::npos) << r.out;
    EXPECT_NE(first.find("core 0 act #0 (activation)"), std::string::npos) << r.out;
    EXPECT_NE(first.find("no semaphore orders them"), std::string::npos) << r.out;
}

// `text` (one core) as a program of two cores running the same streams, as a data-parallel program's do.
std::string on_two_cores(std::string text) {
    const size_t cores = text.find(".cores 1"), core0 = text.find(".core 0\n");
    EXPECT_NE(cores, std::string::npos);
    EXPECT_NE(core0, std::string::npos);
    const std::string streams = text.substr(core0 + std::string(".core 0\n").size());
    text.replace(cores, std::string(".cores 1").size(), ".cores 2");
    return text + "\n.core 1\n" + streams;
}

// A core that repeats a clean core's streams is not checked again (it would find the same), and the
// report says so; a racy core's copies are checked, so every core's races are listed.
TEST_F(RaceCheck, ACoreRepeatingACleanCoresStreamsIsCheckedOnce) {
    const auto clean = check(assemble("two", on_two_cores(read_text(kExamples + "tiled_gemm_double_buffered.s"))));
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    EXPECT_NE(clean.out.find("of 2 cores; 1 of its 2 core graphs repeat a clean core's instructions and were not checked again"),
              std::string::npos)
        << clean.out;

    const auto racy = check(assemble("racy-two", on_two_cores(gemm_with("reduce_dst=none, wait=mm_done>=2, signal=evacuated",
                                                                        "reduce_dst=none, signal=evacuated"))));
    EXPECT_EQ(racy.exit_code, 1) << racy.out << racy.err;
    for (const char* core : {"core 0 pe #1 (matmul)", "core 1 pe #1 (matmul)"})
        EXPECT_NE(racy.out.find(core), std::string::npos) << core << "\n" << racy.out;
    EXPECT_EQ(racy.out.find("repeat"), std::string::npos) << racy.out;   // the racy core was no model
    // Different streams on each core: both checked, nothing said about repeats.
    const auto different = check(assemble("collectives", read_text(kExamples + "collectives_two_cores.s")));
    EXPECT_EQ(different.exit_code, 0) << different.out;
    EXPECT_EQ(different.out.find("repeat"), std::string::npos) << different.out;
}

// Without the wait for the store of output buffer 0, ACT may overwrite it while dma1 still reads it.
TEST_F(RaceCheck, AWriteOverWhatAnotherQueueReadsIsFlagged) {
    const auto r = check(assemble("war", gemm_with("act nop wait=stored>=1", "act nop")));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("race on SBUF"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("core 0 dma1 #0 (dma_copy) and core 0 act #3 (activation) writes what the first reads"), std::string::npos)
        << r.out;
}

TEST_F(RaceCheck, TensorsPlacedOverEachOtherAreFlagged) {
    const auto r = check(assemble("overlap", gemm_with(".tensor C output fp32 [128, 2048] device 0x110000",
                                                       ".tensor C output fp32 [128, 2048] device 0x8000")));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("tensors 'A' [0x0, 0x10000) and 'C' [0x8000, 0x108000) are placed over each other"), std::string::npos)
        << r.out;
}

TEST_F(RaceCheck, AReadOfBytesNothingWroteIsFlagged) {
    const std::string unwritten = gemm_with("src=fp32 psum[0:128] +2048 [[1,512]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=mm_done>=4",
                                            "src=fp32 psum[0:128] +8192 [[1,512]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=mm_done>=4");
    const auto r = check(assemble("unwritten", unwritten));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("core 0 act #1 (activation) reads PSUM partition 0 byte 8192 that nothing wrote before it"), std::string::npos)
        << r.out;
}

TEST_F(RaceCheck, RunCheckRefusesARacyProgramAndRunsACleanOne) {
    const std::string racy = assemble("racy", gemm_with("reduce_dst=none, wait=mm_done>=2, signal=evacuated", "reduce_dst=none, signal=evacuated"));
    const auto refused = test::run_command(test::tool_path("neuron-sim") + " -i trn1.2xlarge run --check " + racy);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("race on PSUM"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out.find("latency"), std::string::npos) << refused.out;
    const std::string clean = assemble("clean", read_text(kExamples + "tiled_gemm_double_buffered.s"));
    const auto ran = test::run_command(test::tool_path("neuron-sim") + " -i trn1.2xlarge run --check " + clean);
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    EXPECT_NE(ran.out.find("latency"), std::string::npos) << ran.out;
}

// Two DMA queues signal `moved`. dma1's transfer waits (through pool) until `moved` reached 1, so it is
// never among the first signal: act's wait for moved >= 1 is dma0's store, and act may then overwrite
// what dma0 loaded and stored. Without pool's wait, dma1 may signal first, and the overwrite races.
const std::string kTwoSignallers = R"(.target v2
.cores 1
.tensor A input fp32 [128, 64] device 0x0
.tensor B input fp32 [128, 64] device 0x10000
.tensor C output fp32 [128, 64] device 0x20000
.sem moved 0
.sem gate 1
.core 0
dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,64]], src=fp32 dram:A +0 [[64,128],[1,64]]
dma0 dma_copy dst=fp32 dram:C +0 [[64,128],[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], signal=moved
pool nop wait=moved>=1, signal=gate
dma1 dma_copy dst=fp32 sbuf[0:128] +1024 [[1,64]], src=fp32 dram:B +0 [[64,128],[1,64]], wait=gate>=1, signal=moved
act activation dst=fp32 sbuf[0:128] +0 [[1,64]], src=fp32 sbuf[0:128] +0 [[1,64]], func=identity, scale=1, bias=none, reduce_op=none, reduce_dst=none, wait=moved>=1
)";

TEST_F(RaceCheck, ASignalThatWaitsUntilTheCountWasReachedDoesNotSatisfyTheWait) {
    const auto clean = check(assemble("ordered", kTwoSignallers));
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
    std::string early = kTwoSignallers;
    const std::string gated = "pool nop wait=moved>=1, signal=gate";
    early.replace(early.find(gated), gated.size(), "pool nop signal=gate");
    const auto racy = check(assemble("early", early));
    EXPECT_EQ(racy.exit_code, 1) << racy.out;
    EXPECT_NE(racy.out.find("race on SBUF partition 0 byte 0: core 0 act #0 (activation) and core 0 dma0 #0"), std::string::npos)
        << racy.out;
}

// A scratch tensor with initial contents (a training program's parameters, which the optimizer
// rewrites) was written by the host; one without was not.
TEST_F(RaceCheck, ScratchWithInitialContentsCountsAsWritten) {
    const std::string program = R"(.target v2
.cores 1
.tensor P scratch fp32 [1, 4] device 0x0
.data P 0000803f0000803f0000803f0000803f
.tensor Q scratch fp32 [1, 4] device 0x100
.tensor C output fp32 [1, 4] device 0x200
.sem loaded 0
.core 0
dma0 dma_copy dst=fp32 sbuf[0:1] +0 [[1,4]], src=fp32 dram:P +0 [[4,1],[1,4]], signal=loaded
dma0 dma_copy dst=fp32 dram:C +0 [[4,1],[1,4]], src=fp32 sbuf[0:1] +0 [[1,4]]
)";
    EXPECT_EQ(check(assemble("initialised", program)).exit_code, 0);
    std::string unwritten = program;
    unwritten.replace(unwritten.find("dram:P"), 6, "dram:Q");
    const auto r = check(assemble("unwritten", unwritten));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("core 0 dma0 #0 (dma_copy) reads device memory byte 0x100 that nothing wrote before it"), std::string::npos)
        << r.out;
}

// Training programs (parameters and optimizer states as state, left out of the timing-only one; one
// DMA channel's counting semaphore shared by sixteen queues) are clean; so is pretraining in passes
// of one sequence, whose gradient rooms are placed again after each rewind (a vocabulary wider than
// a room block: the decoder bias's sum raced with the embedding layernorm's before BufferStates kept
// given-back buffers under an untracked region); and at seq 256 with the FFN in chunks of 128 tokens,
// the attention's and FFN's activations stored as made and their SBUF given back at once.
TEST_F(RaceCheck, TrainingProgramsAreClean) {
    const auto dir = dir_.path();
    std::ofstream(dir / "config.json") << R"({"vocab_size": 300, "hidden_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 256})";
    const std::string pretrain = " --task pretrain --dtype fp32 --grad-accum 2 --sequences-per-pass 1 --max-predictions 3";
    // The last: data parallel on two cores, whose gradient all-reduce names the gradients through
    // bucket aliases (declared views, not tensors placed over each other by mistake).
    for (const std::string options : {std::string(" --seq 32"), std::string(" --seq 32 --timing-only"), " --seq 32" + pretrain,
                                      " --seq 256" + pretrain + " --tokens-per-chunk 128", std::string(" --seq 32 --cores 2")}) {
        const std::string program = (dir / "train.bin").string();
        const auto built = test::run_command(test::tool_path("neuron-build") + " bert-train --model " + (dir / "config.json").string() +
                                             " --micro-batch 2 --instance trn1.2xlarge" + options + " -o " + program);
        ASSERT_EQ(built.exit_code, 0) << built.err;
        const auto r = check(program);
        EXPECT_EQ(r.exit_code, 0) << options << ":\n" << r.out.substr(0, 2000) << r.err;
    }
    // BERT-base's layer width in bf16 with passes of two sequences: a spilled activation's store read
    // a tile while evacuations wrote the columns of a buffer over it (a partial write waited for no
    // reader before the builder's before_writes: 48 findings in this program, 1020 in BERT-base's).
    std::ofstream(dir / "wide.json") << R"({"vocab_size": 300, "hidden_size": 768, "num_hidden_layers": 1,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 256})";
    const std::string wide = (dir / "wide.bin").string();
    const auto built = test::run_command(test::tool_path("neuron-build") + " bert-train --model " + (dir / "wide.json").string() +
                                         " --micro-batch 4 --grad-accum 2 --seq 128 --dtype bf16 --timing-only --instance trn1.2xlarge -o " + wide);
    ASSERT_EQ(built.exit_code, 0) << built.err;
    const auto r = check(wide);
    EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 2000) << r.err;
}

// In a program of several graphs a finding names its graph (each graph's queues count their
// instructions from 0); graph 'first' is clean, graph 'second' races as kTwoSignallers without the gate.
TEST_F(RaceCheck, AFindingNamesItsGraph) {
    std::string racy = kTwoSignallers;
    const std::string gated = "pool nop wait=moved>=1, signal=gate";
    racy.replace(racy.find(gated), gated.size(), "pool nop signal=gate");
    const std::string core = ".core 0\n";
    const std::string clean_body = kTwoSignallers.substr(kTwoSignallers.find(core) + core.size());
    std::string program = racy;
    program.insert(program.find(core), ".graph first\n" + core + clean_body + ".graph second\n");
    const auto r = check(assemble("graphs", program));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("graphs.bin: graph 'second': race on SBUF partition 0 byte 0: core 0 act #0 (activation)"), std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("graph 'first'"), std::string::npos) << r.out;
}

TEST_F(RaceCheck, AnUnreadableProgramIsOneLine) {
    const auto r = check((dir_.path() / "nope.bin").string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
}

}  // namespace
}  // namespace nsim
