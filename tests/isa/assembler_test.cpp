// Assembler errors point at file:line:column with one exact line; validator problems found after
// assembly are located at the instruction that causes them.
#include <gtest/gtest.h>

#include "isa/text_format.h"
#include "isa_test_support.h"

namespace nsim::isa {
namespace {

const std::string prologue =
    ".target v2\n"
    ".cores 1\n"
    ".tensor W weight bf16 [64, 64] device 0x0\n"
    ".sem loaded 0\n"
    ".core 0\n";

std::string error_of(const std::string& source) {
    try {
        assemble(source, "k.s");
    } catch (const AssemblyError& e) {
        return e.what();
    }
    return "(no error)";
}

const std::string good_matmul =
    "pe matmul dst=fp32 psum[0:64] +0 [[1,256]], stationary=bf16 sbuf[0:64] +0 [[1,64]], "
    "moving=bf16 sbuf[0:64] +1024 [[1,256]], acc=overwrite, wait=loaded>=1";

TEST(Assembler, AssemblesTheSameProgramAsTheBuilder) {
    const std::string source = prologue +
                               "dma0 dma_copy dst=bf16 sbuf[0:64] +0 [[1,64]], src=bf16 dram:W +0 [[64,64],[1,64]], "
                               "signal=loaded   # load\n" +
                               good_matmul + "\n";
    Assembly a = assemble(source, "k.s");
    Container expected = test::small_program();
    expected.metadata.clear();
    expected.tensors[0].data.clear();
    EXPECT_EQ(write_container(a.container), write_container(expected));
    ASSERT_EQ(a.instruction_positions.at(3).size(), 1u);
    EXPECT_EQ(a.instruction_positions.at(3)[0].line, 7u);
    EXPECT_EQ(a.instruction_positions.at(4)[0].line, 6u);
}

TEST(Assembler, CommentsBlankLinesAndAnyFieldOrder) {
    const std::string source = "; header comment\n\n" + prologue +
                               "pe matmul acc=accumulate, moving=bf16 sbuf[0:64] +1024 [[1,256]], "
                               "stationary=bf16 sbuf[0:64] [[1,64]], dst=fp32 psum[0:64] +0 [[1,256]]\n";
    const Assembly a = assemble(source, "k.s");
    const Instruction& inst = a.container.streams[0].instructions[0];
    EXPECT_EQ(inst.accumulate(fields::Matmul::acc), AccumulateMode::Accumulate);
    EXPECT_EQ(inst.ap(fields::Matmul::stationary).offset, 0u);
    EXPECT_EQ(inst.sync.wait_semaphore, kNoSemaphore);
}

TEST(Assembler, UnknownInstruction) {
    EXPECT_EQ(error_of(prologue + "pe matmull dst=none\n"), "k.s:6:4: error: unknown instruction 'matmull'");
}

TEST(Assembler, UnknownQueue) {
    EXPECT_EQ(error_of(prologue + "  tpu nop\n"),
              "k.s:6:3: error: unknown engine queue 'tpu' (pe, act, dve, pool, sp, dma0, dma1, ...)");
}

TEST(Assembler, UnknownOperandName) {
    EXPECT_EQ(error_of(prologue + "pe matmul dest=none\n"), "k.s:6:11: error: 'matmul' has no operand 'dest'");
}

TEST(Assembler, MissingOperand) {
    EXPECT_EQ(error_of(prologue + "pe matmul dst=fp32 psum[0:64] [[1,256]]\n"),
              "k.s:6:4: error: 'matmul' needs operand 'stationary'");
}

TEST(Assembler, BadDataType) {
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp64 sbuf[0:64] [[1,8]], value=0\n"),
              "k.s:6:16: error: expected a data type (fp32, bf16, fp16, fp8e4m3, fp8e5m2, int8, int32, uint8), found "
              "'fp64'");
}

TEST(Assembler, UnknownSemaphoreAndTensor) {
    EXPECT_EQ(error_of(prologue + "sp nop wait=ready>=1\n"), "k.s:6:13: error: unknown semaphore 'ready'");
    EXPECT_EQ(error_of(prologue + "dma0 dma_copy dst=bf16 dram:X [[1,1],[1,1]], src=none\n"),
              "k.s:6:29: error: unknown tensor 'X'");
}

TEST(Assembler, MissingCommaAndEndOfLine) {
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp32 sbuf[0:64] [[1,8]] value=0\n"),
              "k.s:6:40: error: expected ',', found 'value'");
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp32 sbuf[0:64] [[1,8]\n"),
              "k.s:6:38: error: expected ']', found end of line");
}

TEST(Assembler, NumbersOutOfRange) {
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp32 sbuf[0:64] [[3000000000,8]], value=0\n"),
              "k.s:6:34: error: stride 3000000000 out of range [-2147483648, 2147483647]");
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp32 sbuf[0:64] [[1,8]], value=1e99\n"),
              "k.s:6:47: error: '1e99' is out of range for f32");
}

TEST(Assembler, EmptyPartitionRangeAndTooManyDims) {
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp32 sbuf[8:8] [[1,8]], value=0\n"),
              "k.s:6:28: error: empty partition range");
    EXPECT_EQ(error_of(prologue + "dve memset dst=fp32 sbuf[0:8] [[1,1],[1,1],[1,1],[1,1],[1,1]], value=0\n"),
              "k.s:6:31: error: an access pattern has 1 to 4 free [stride,count] pairs");
}

TEST(Assembler, Directives) {
    EXPECT_EQ(error_of(".cores 1\n.core 0\n"), "k.s:1:1: error: no .target directive (e.g. .target v2)");
    EXPECT_EQ(error_of(".target 2\n"), "k.s:1:9: error: expected a generation like v2, found '2'");
    EXPECT_EQ(error_of(".target v2\n.cores 2\n.core 2\n"), "k.s:3:7: error: core 2 but .cores says 2");
    EXPECT_EQ(error_of(".target v2\n.bogus\n"), "k.s:2:1: error: unknown directive '.bogus'");
    EXPECT_EQ(error_of(".target v2\npe nop\n"), "k.s:2:1: error: instruction before any .core directive");
    EXPECT_EQ(error_of(prologue + ".tensor W weight bf16 [1] device 0\n"), "k.s:6:9: error: tensor 'W' is already defined");
    EXPECT_EQ(error_of(prologue + ".sem other 0\n"), "k.s:6:6: error: semaphore 0 already has the name 'loaded'");
    EXPECT_EQ(error_of(prologue + ".tensor V weight bf16 [2] device 0\n.data V 0011\n"),
              "k.s:6:9: error: tensor 'V' has 2 bytes of .data, its shape needs 4");
    EXPECT_EQ(error_of(prologue + ".data W 0g\n"), "k.s:6:9: error: not a hex digit");
    EXPECT_EQ(error_of(prologue + ".meta model \"unterminated\n"), "k.s:6:13: error: unterminated string");
    EXPECT_EQ(error_of(prologue + "sp nop @\n"), "k.s:6:8: error: unexpected character '@'");
}

TEST(Assembler, ValidatorProblemsPointAtTheInstruction) {
    const std::string source = prologue + "sp nop\n" +
                               "pe matmul dst=fp32 psum[0:64] +0 [[1,256]], stationary=bf16 sbuf[0:64] +0 [[1,64]], "
                               "moving=bf16 sbuf[0:64] +3600 [[1,256]], acc=overwrite\n";
    const Assembly a = assemble(source, "k.s");
    const auto problems = validate(a.container, test::made_up_limits());
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(a.locate(problems[0]), "k.s:7:1: error: operand 'moving': bytes [3600, 4112) of each partition outside "
                                     "sbuf (4096 bytes per partition)");
    Assembly other = a;
    other.container.generation = 3;
    EXPECT_EQ(other.locate(validate(other.container, test::made_up_limits())[0]),
              "k.s:1:1: error: the program is for NeuronCore-v3, this machine has NeuronCore-v2");
}

TEST(Assembler, QuotedNamesAndNonFiniteFloatsRoundTrip) {
    const std::string source = ".target v2\n.cores 1\n.meta \"odd key\" \"tab\\there \\x01\"\n"
                               ".tensor \"a b\" scratch fp32 [4] device 0x10\n.core 0\n"
                               "dve memset dst=fp32 sbuf[0:1] [[1,4]], value=0x7fc00001\n"
                               "act tensor_scalar dst=fp32 sbuf[0:1] [[1,4]], src=fp32 sbuf[0:1] [[1,4]], op0=add, "
                               "imm0=inf, op1=multiply, imm1=-1.25e-3\n"
                               "dma3 dma_copy dst=fp32 dram:\"a b\" [[0,1],[1,4]], src=fp32 sbuf[0:1] [[1,4]]\n";
    const Assembly a = assemble(source, "k.s");
    const auto bytes = write_container(a.container);
    const std::string text = disassemble(read_container(bytes));
    EXPECT_EQ(write_container(assemble(text, "again.s").container), bytes);
    EXPECT_NE(text.find("value=0x7fc00001"), std::string::npos);
    EXPECT_NE(text.find("dram:\"a b\""), std::string::npos);
}

}  // namespace
}  // namespace nsim::isa
