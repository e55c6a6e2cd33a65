// neuron-as and neuron-objdump as a user runs them: exit codes, output, and one-line errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "isa/container_io.h"
#include "isa/text_format.h"

namespace {

namespace fs = std::filesystem;

struct Outcome {
    int status = -1;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path scratch() {
    fs::path dir = fs::path(::testing::TempDir()) /
                   ("isa_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir);
    return dir;
}

Outcome run(const std::string& args) {
    const fs::path dir = scratch();
    const std::string cmd = args + " >" + (dir / "stdout").string() + " 2>" + (dir / "stderr").string();
    Outcome r;
    const int raw = std::system(cmd.c_str());
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(dir / "stdout");
    r.err = slurp(dir / "stderr");
    return r;
}

std::string quote(const fs::path& p) { return "'" + p.string() + "'"; }
const std::string as = NEURON_AS, objdump = NEURON_OBJDUMP;
const fs::path examples = NSIM_ISA_EXAMPLES_DIR;

size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

TEST(NeuronAsCli, AssemblesEveryExampleAndObjdumpRoundTrips) {
    for (const auto& e : fs::directory_iterator(examples)) {
        if (e.path().extension() != ".s") continue;
        SCOPED_TRACE(e.path().string());
        const fs::path dir = scratch();
        const fs::path bin = dir / "a.bin", text = dir / "a.s", bin2 = dir / "b.bin";
        Outcome a = run(as + " " + quote(e.path()) + " -o " + quote(bin));
        ASSERT_EQ(a.status, 0) << a.err;
        EXPECT_EQ(a.err, "");
        Outcome d = run(objdump + " " + quote(bin));
        ASSERT_EQ(d.status, 0) << d.err;
        { std::ofstream(text) << d.out; }
        Outcome b = run(as + " " + quote(text) + " -o " + quote(bin2));
        ASSERT_EQ(b.status, 0) << b.err;
        EXPECT_EQ(slurp(bin), slurp(bin2));
    }
}

TEST(NeuronAsCli, DefaultOutputNameReplacesTheExtension) {
    const fs::path dir = scratch();
    fs::copy_file(examples / "collectives_two_cores.s", dir / "c.s", fs::copy_options::overwrite_existing);
    Outcome a = run(as + " " + quote(dir / "c.s"));
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_TRUE(fs::exists(dir / "c.bin"));
}

TEST(NeuronAsCli, SyntaxErrorIsOneLineAtFileLineColumn) {
    const fs::path src = scratch() / "bad.s";
    { std::ofstream(src) << ".target v2\n.cores 1\n.core 0\npe matmull\n"; }
    Outcome a = run(as + " " + quote(src) + " -o " + quote(scratch() / "bad.bin"));
    EXPECT_EQ(a.status, 1);
    EXPECT_EQ(a.err, src.string() + ":4:4: error: unknown instruction 'matmull'\n");
    EXPECT_FALSE(fs::exists(scratch() / "bad.bin"));
}

TEST(NeuronAsCli, ProgramBeyondTheConfiguredSbufIsRejectedAtItsLine) {
    const fs::path src = scratch() / "big.s";
    { std::ofstream(src) << ".target v2\n.cores 1\n.core 0\ndve memset dst=fp32 sbuf[0:1] +1000000000 [[1,4]], value=0\n"; }
    Outcome a = run(as + " " + quote(src) + " -o " + quote(scratch() / "big.bin"));
    EXPECT_EQ(a.status, 1);
    EXPECT_EQ(lines(a.err), 1u);
    EXPECT_EQ(a.err.rfind(src.string() + ":4:1: error: operand 'dst': bytes [1000000000, 1000000016) of each "
                                         "partition outside sbuf (", 0), 0u)
        << a.err;
}

TEST(NeuronAsCli, GenerationMissingFromTheConfiguration) {
    const fs::path src = scratch() / "v9.s";
    { std::ofstream(src) << "# future chip\n.target v9\n"; }
    Outcome a = run(as + " " + quote(src) + " -o " + quote(scratch() / "v9.bin"));
    EXPECT_EQ(a.status, 1);
    EXPECT_EQ(lines(a.err), 1u);
    EXPECT_EQ(a.err.rfind(src.string() + ":2:1: error: no chip in the configuration has a NeuronCore-v9", 0), 0u)
        << a.err;
}

TEST(NeuronAsCli, UsageErrorsAreOneLine) {
    Outcome missing = run(as + " " + quote(scratch() / "nope.s"));
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(missing.err, "neuron-as: " + (scratch() / "nope.s").string() + ": cannot open the assembly source: No such file or directory\n");
    Outcome no_args = run(as);
    EXPECT_NE(no_args.status, 0);
    EXPECT_EQ(lines(no_args.err), 1u) << no_args.err;
    Outcome help = run(as + " --help");
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("-o,--output"), std::string::npos);
}

TEST(NeuronObjdumpCli, HeaderSummary) {
    const fs::path bin = scratch() / "g.bin";
    ASSERT_EQ(run(as + " " + quote(examples / "tiled_gemm_double_buffered.s") + " -o " + quote(bin)).status, 0);
    Outcome h = run(objdump + " -h " + quote(bin));
    ASSERT_EQ(h.status, 0) << h.err;
    EXPECT_NE(h.out.find("format version 2\n"), std::string::npos);
    EXPECT_NE(h.out.find("target         NeuronCore-v2\n"), std::string::npos);
    EXPECT_NE(h.out.find("meta           model = tiled-gemm\n"), std::string::npos);
    EXPECT_NE(h.out.find("core 0 queue pe"), std::string::npos);
    EXPECT_NE(h.out.find("11 instructions"), std::string::npos);
}

TEST(NeuronObjdumpCli, DamagedFileIsOneLine) {
    const fs::path bin = scratch() / "g.bin";
    ASSERT_EQ(run(as + " " + quote(examples / "tiled_gemm_double_buffered.s") + " -o " + quote(bin)).status, 0);
    std::string bytes = slurp(bin);
    bytes.resize(bytes.size() / 2);
    { std::ofstream(bin, std::ios::binary) << bytes; }
    Outcome d = run(objdump + " " + quote(bin));
    EXPECT_EQ(d.status, 1);
    EXPECT_EQ(d.err, "neuron-objdump: " + bin.string() + ": truncated: the header says the file is " +
                         std::to_string(bytes.size() * 2) + " bytes, it is " + std::to_string(bytes.size()) + "\n");
    EXPECT_EQ(d.out, "");

    { std::ofstream(bin) << "just text\n"; }
    Outcome t = run(objdump + " " + quote(bin));
    EXPECT_EQ(t.status, 1);
    EXPECT_EQ(t.err, "neuron-objdump: " + bin.string() + ": truncated: the file is 10 bytes, shorter than the "
                                                         "64-byte header\n");
    Outcome missing = run(objdump + " " + quote(scratch() / "none.bin"));
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(lines(missing.err), 1u);
    Outcome bad_flag = run(objdump + " --bogus x");
    EXPECT_NE(bad_flag.status, 0);
    EXPECT_EQ(lines(bad_flag.err), 1u) << bad_flag.err;
}

}  // namespace
