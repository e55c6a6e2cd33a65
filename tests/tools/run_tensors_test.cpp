// `neuron-sim run --functional --input NAME=FILE.npy --output-dir DIR` as a user runs it: the shipped
// tiled GEMM example takes its A and B from .npy files and writes C, which matches a plain C++ matmul
// of the same values; every bad input is one line on stderr naming the tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "common/command_runner.h"
#include "common/temp_directory.h"
#include "npy_file.h"

namespace nsim {
namespace {

constexpr size_t kM = 128, kK = 256, kN = 2048;   // isa/examples/tiled_gemm_double_buffered.s

// bf16 of `value` by round-to-nearest-even on the bits (written here, apart from the simulator's).
float round_to_bf16(float value) {
    uint32_t bits = 0;
    std::memcpy(&bits, &value, 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    bits &= 0xffff0000u;
    std::memcpy(&value, &bits, 4);
    return value;
}

// An output file the run wrote (the library has no whole-file .npy reader: users' files go through
// the bounded one; this test reads what the tool wrote and parses it).
npy::Array read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return npy::parse(bytes.data(), bytes.size());
}

npy::Array float32_array(std::vector<uint64_t> shape, const std::vector<float>& values) {
    npy::Array a{"<f4", std::move(shape), std::vector<uint8_t>(values.size() * 4)};
    std::memcpy(a.data.data(), values.data(), a.data.size());
    return a;
}

class RunTensors : public ::testing::Test {
protected:
    void SetUp() override {
        program_ = (dir_.path() / "gemm.bin").string();
        const std::string source = std::string(NSIM_CONFIG_DIR) + "/../isa/examples/tiled_gemm_double_buffered.s";
        const auto as = test::run_command(test::tool_path("neuron-as") + " " + source + " -o " + program_);
        ASSERT_EQ(as.exit_code, 0) << as.err;
        std::mt19937 rng(14);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        a_.resize(kK * kM);
        b_.resize(kK * kN);
        for (float& v : a_) v = uniform(rng);
        for (float& v : b_) v = uniform(rng);
        npy::write_file(path("a.npy"), float32_array({kK, kM}, a_));
        npy::write_file(path("b.npy"), float32_array({kK, kN}, b_));
    }
    std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
    test::CommandResult run(const std::string& arguments) const {
        return test::run_command(test::tool_path("neuron-sim") + " -i trn1.2xlarge run " + program_ + " " + arguments);
    }

    test::TempDirectory dir_;
    std::string program_;
    std::vector<float> a_, b_;
};

TEST_F(RunTensors, InputsInOutputsOutMatchAPlainMatmul) {
    const auto r = run("--functional --input A=" + path("a.npy") + " --input B=" + path("b.npy") + " --output-dir " + path("out"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("output written"), std::string::npos) << r.out;
    const npy::Array c = read_npy(path("out/C.npy"));
    ASSERT_EQ(c.descr, "<f4");
    ASSERT_EQ(c.shape, (std::vector<uint64_t>{kM, kN}));
    std::vector<float> got(kM * kN);
    std::memcpy(got.data(), c.data.data(), c.data.size());
    // C = A^T B over bf16 operands, accumulated in fp32 (PSUM): a tolerance of fp32 rounding over K terms.
    size_t checked = 0;
    for (size_t m = 0; m < kM; ++m)
        for (size_t n = 0; n < kN; ++n) {
            double want = 0, magnitude = 0;
            for (size_t k = 0; k < kK; ++k) {
                const double term = double(round_to_bf16(a_[k * kM + m])) * double(round_to_bf16(b_[k * kN + n]));
                want += term;
                magnitude += std::fabs(term);
            }
            ASSERT_NEAR(got[m * kN + n], want, 1e-6 * kK * magnitude + 1e-30) << "C[" << m << ", " << n << "]";
            ++checked;
        }
    EXPECT_EQ(checked, kM * kN);
}

// The same run with --json lists the files written.
TEST_F(RunTensors, JsonListsTheOutputs) {
    const auto r = run("--functional --json --input A=" + path("a.npy") + " --input B=" + path("b.npy") + " --output-dir " +
                       path("o2"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(path("o2/C.npy")), std::string::npos) << r.out;
}

// One line on stderr, a non-zero exit, and the words that say what to fix.
void expect_one_line_error(const test::CommandResult& r, const std::vector<std::string>& words) {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "missing '" << w << "' in: " << r.err;
}

TEST_F(RunTensors, AMissingInputIsNamed) {
    expect_one_line_error(run("--functional --input B=" + path("b.npy") + " --output-dir " + path("out")),
                          {"missing weight 'A'", "bf16 (256, 128)", "--input A=FILE.npy"});
}

TEST_F(RunTensors, AMisnamedInputListsTheRealOnes) {
    expect_one_line_error(run("--functional --input X=" + path("a.npy") + " --input B=" + path("b.npy")),
                          {"no tensor 'X'", "A, B"});
    expect_one_line_error(run("--functional --input C=" + path("a.npy")), {"'C' is an output tensor"});
}

TEST_F(RunTensors, AWronglyShapedInputIsNamed) {
    expect_one_line_error(run("--functional --input A=" + path("b.npy") + " --input B=" + path("b.npy")),
                          {"input 'A'", "has shape (256, 2048)", "the tensor is (256, 128)"});
}

TEST_F(RunTensors, AWronglyTypedInputIsNamed) {
    npy::Array wide{"<f8", {kK, kM}, std::vector<uint8_t>(kK * kM * 8)};
    npy::write_file(path("a64.npy"), wide);
    expect_one_line_error(run("--functional --input A=" + path("a64.npy") + " --input B=" + path("b.npy")),
                          {"input 'A'", "holds float64", "takes float32"});
}

TEST_F(RunTensors, UnreadableFilesAndMisuseAreOneLine) {
    expect_one_line_error(run("--functional --input A=" + path("nope.npy")), {"input 'A'", "cannot open", "nope.npy"});
    npy::write_file(path("junk.npy"), npy::Array{"|u1", {3}, {1, 2, 3}});
    std::filesystem::resize_file(path("junk.npy"), 20);
    expect_one_line_error(run("--functional --input A=" + path("junk.npy")), {"input 'A'", "junk.npy"});
    expect_one_line_error(run("--input A=" + path("a.npy")), {"--functional"});
    expect_one_line_error(run("--functional --input A"), {"NAME=FILE.npy"});
    expect_one_line_error(run("--functional --input A=" + path("a.npy") + " --input A=" + path("a.npy")), {"A", "twice"});
}

// A program of two graphs: "copy" copies input x to output y, "constant" copies the scratch tensor k
// (initial contents 1, 2, 3, 4) to y. --graph runs the one it names; without it the first runs, and
// stderr says so; a name the program does not have is one line listing the ones it has.
TEST(RunGraph, RunsTheGraphItNames) {
    test::TempDirectory dir;
    const std::string source = (dir.path() / "graphs.s").string(), program = (dir.path() / "graphs.bin").string();
    std::ofstream(source) << R"(.target v2
.tensor x input fp32 [1, 4] device 0
.tensor k scratch fp32 [1, 4] device 64
.data k 0000803f000000400000404000008040
.tensor y output fp32 [1, 4] device 128
.graph copy
.core 0
dma0 dma_copy dst=fp32 dram:y [[4, 1], [1, 4]], src=fp32 dram:x [[4, 1], [1, 4]]
.graph constant
.core 0
dma0 dma_copy dst=fp32 dram:y [[4, 1], [1, 4]], src=fp32 dram:k [[4, 1], [1, 4]]
)";
    ASSERT_EQ(test::run_command(test::tool_path("neuron-as") + " " + source + " -o " + program).exit_code, 0);
    npy::write_file((dir.path() / "x.npy").string(), float32_array({1, 4}, {-1, -2, -3, -4}));
    auto y_after = [&](const std::string& arguments, test::CommandResult* result) {
        const std::string out = (dir.path() / "out").string();
        *result = test::run_command(test::tool_path("neuron-sim") + " -i trn1.2xlarge run " + program + " --functional --input x=" +
                                    (dir.path() / "x.npy").string() + " --output-dir " + out + " " + arguments);
        std::vector<float> y(4, 0.0f);
        if (result->exit_code != 0) return y;
        const npy::Array a = read_npy(out + "/y.npy");
        std::memcpy(y.data(), a.data.data(), std::min<size_t>(a.data.size(), 16));
        return y;
    };
    test::CommandResult r;
    EXPECT_EQ(y_after("--graph constant", &r), (std::vector<float>{1, 2, 3, 4})) << r.err;
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(y_after("--graph copy", &r), (std::vector<float>{-1, -2, -3, -4})) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(y_after("", &r), (std::vector<float>{-1, -2, -3, -4})) << r.err;
    EXPECT_NE(r.err.find("has 2 graphs ('copy', 'constant'); running the first, 'copy' (--graph chooses)"), std::string::npos) << r.err;
    y_after("--graph optimizer", &r);
    expect_one_line_error(r, {"--graph optimizer", "graphs.bin has no graph of that name", "'copy', 'constant'"});
}

}  // namespace
}  // namespace nsim
