// The validator against programs that break a generation's limits: each problem one exact line.
#include <gtest/gtest.h>

#include "isa_test_support.h"

namespace nsim::isa {
namespace {

using namespace test;

// Writes and re-reads the program (a crafted file), then validates it against the made-up limits.
std::vector<std::string> problems(const Container& c, const GenerationLimits& limits = made_up_limits()) {
    std::vector<std::string> lines;
    for (const auto& d : validate(read_container(write_container(c)), limits)) lines.push_back(d.text());
    return lines;
}

using Lines = std::vector<std::string>;

TEST(Validator, SmallProgramIsValid) { EXPECT_EQ(problems(small_program()), Lines{}); }

TEST(Validator, ProgramForAnotherGeneration) {
    Container c = small_program();
    c.generation = 3;
    EXPECT_EQ(problems(c), Lines{"header: the program is for NeuronCore-v3, this machine has NeuronCore-v2"});
}

// Streams that share one instruction list (a data-parallel program's cores) are checked once, and
// each still gets the findings under its own section; a program validated again after a change is
// checked again (the last result is reused only for the same program).
TEST(Validator, SharedStreamsAreReportedEachUnderItsOwnSection) {
    Container shared = small_program();
    shared.cores_needed = 2;
    shared.streams[0].instructions[0].ap(fields::Matmul::dst).partition_start = 8;
    InstructionStream copy = shared.streams[0];
    copy.core = 1;
    shared.streams.push_back(copy);
    shared.canonicalize();
    Container separate = shared;
    for (InstructionStream& s : separate.streams) s.instructions = InstructionList(s.instructions.vector());
    ASSERT_TRUE(shared.streams[0].instructions.shares_body_with(shared.streams[2].instructions));
    ASSERT_FALSE(separate.streams[0].instructions.shares_body_with(separate.streams[2].instructions));

    auto lines = [](const Container& c) {
        std::vector<std::string> out;
        for (const Diagnostic& d : validate(c, made_up_limits())) out.push_back(d.text());
        return out;
    };
    const Lines expected = lines(separate);
    ASSERT_EQ(expected.size(), 2u);
    EXPECT_NE(expected[0].substr(0, 12), expected[1].substr(0, 12));  // two sections named
    EXPECT_EQ(lines(shared), expected);
    EXPECT_EQ(lines(shared), expected);  // again: the same answer

    shared.streams[0].instructions[0].ap(fields::Matmul::dst).partition_start = 0;  // copy on write: core 0 only
    const Lines after = lines(shared);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0], expected[1]);
}

TEST(Validator, OperandOutsideSbuf) {
    Container c = small_program();
    c.streams[0].instructions[0].ap(fields::Matmul::moving).offset = 3584;  // ends exactly at the last byte
    EXPECT_EQ(problems(c), Lines{});
    c.streams[0].instructions[0].ap(fields::Matmul::moving).offset = 3600;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: operand 'moving': bytes [3600, 4112) "
                                 "of each partition outside sbuf (4096 bytes per partition)"});
}

TEST(Validator, NegativeStrideBeforeTheStartOfSbuf) {
    Container c = small_program();
    AccessPattern& ap = c.streams[1].instructions[0].ap(fields::DmaCopy::dst);
    ap.dims[0] = {-1, 64};
    ap.offset = 100;
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 0: operand 'dst': bytes [-26, 102) of "
                                 "each partition outside sbuf (4096 bytes per partition)"});
}

TEST(Validator, OperandOutsidePsumPartitions) {
    Container c = small_program();
    c.streams[0].instructions[0].ap(fields::Matmul::dst).partition_start = 8;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: operand 'dst': partitions [8, 72) "
                                 "outside psum (64 partitions)"});
}

TEST(Validator, OperandOutsidePsumBytes) {
    Container c = small_program();
    c.streams[0].instructions[0].ap(fields::Matmul::dst).offset = 1024;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: operand 'dst': bytes [1024, 2048) of "
                                 "each partition outside psum (1024 bytes per partition)"});
}

TEST(Validator, MovingTileLargerThanTheGenerationAllows) {
    Container c = small_program();
    c.streams[0].instructions[0] = matmul(64, 64, 512);
    c.streams[0].instructions[0].ap(fields::Matmul::dst).dims[0].count = 256;  // keep PSUM in range
    c.streams[0].instructions[0].ap(fields::Matmul::dst).dim_count = 2;
    c.streams[0].instructions[0].ap(fields::Matmul::dst).dims[1] = {0, 2};
    c.streams[0].instructions[0].ap(fields::Matmul::moving).offset = 0;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: matmul moving tile free size 512 "
                                 "exceeds NeuronCore-v2's limit of 256"});
}

TEST(Validator, StationaryTileAndContractionLimits) {
    Container c = small_program();
    GenerationLimits limits = made_up_limits();
    limits.max_contraction = 32;
    limits.max_stationary_free = 16;
    EXPECT_EQ(problems(c, limits),
              (Lines{"section 3 (core 0 queue pe), instruction 0: matmul contraction (partitions) 64 exceeds "
                     "NeuronCore-v2's limit of 32",
                     "section 3 (core 0 queue pe), instruction 0: matmul stationary tile free size 64 exceeds "
                     "NeuronCore-v2's limit of 16"}));
}

TEST(Validator, MatmulShapesMustAgree) {
    Container c = small_program();
    c.streams[0].instructions[0].ap(fields::Matmul::moving).partition_count = 32;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: moving has 32 partitions, stationary 64"});
}

TEST(Validator, WaitSemaphoreOutOfRange) {
    Container c = small_program();
    c.streams[0].instructions[0].sync.wait_semaphore = 16;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: wait semaphore 16 out of range "
                                 "(the core has 16)"});
}

TEST(Validator, SignalAndOperandSemaphoresOutOfRange) {
    Container c = small_program();
    c.streams[1].instructions[0].sync.signal_semaphore = 99;
    Instruction set;
    set.opcode = Opcode::SemSet;
    set.set_u32(fields::SemSet::sem, 40);
    c.streams[1].instructions.push_back(set);
    EXPECT_EQ(problems(c),
              (Lines{"section 4 (core 0 queue dma0), instruction 0: signal semaphore 99 out of range (the core has 16)",
                     "section 4 (core 0 queue dma0), instruction 1: operand 'sem': semaphore 40 out of range (the core "
                     "has 16)"}));
}

TEST(Validator, OpcodeOnTheWrongEngine) {
    Container c = small_program();
    c.streams[1].instructions.push_back(matmul(64, 64, 256));
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 1: 'matmul' does not run on the dma engine"});
}

TEST(Validator, EngineTheGenerationLacks) {
    Container c = small_program();
    GenerationLimits limits = made_up_limits();
    limits.engines &= ~table_names::PE;
    EXPECT_EQ(problems(c, limits), Lines{"section 3 (core 0 queue pe): NeuronCore-v2 has no pe engine"});
}

TEST(Validator, DmaQueueOutOfRange) {
    Container c = small_program();
    c.streams[1].queue = 4;
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma4): DMA queue 4 out of range (the core has 4)"});
}

TEST(Validator, DramOperandOutsideItsTensor) {
    Container c = small_program();
    c.streams[1].instructions[0].ap(fields::DmaCopy::src).offset = 2;
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 0: operand 'src': bytes [2, 8194) "
                                 "outside tensor 'W' (8192 bytes)"});
}

TEST(Validator, UnknownTensorAndWrongLocation) {
    Container c = small_program();
    c.streams[1].instructions[0].ap(fields::DmaCopy::src).tensor = 5;
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 0: operand 'src': tensor 5 does not "
                                 "exist (the table has 1)"});
    c.streams[1].instructions[0].ap(fields::DmaCopy::src).tensor = 0;
    c.streams[1].instructions[0].ap(fields::DmaCopy::src).space = MemorySpace::Host;
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 0: operand 'src': tensor 'W' is in "
                                 "device memory, the operand says host"});
}

TEST(Validator, WeightsAreReadOnly) {
    // The load turned into a store: SBUF back into W. The runtime may keep a copy of the weights
    // next to each core, so a write to one would not reach the others.
    Container c = small_program();
    isa::Instruction& store = c.streams[1].instructions[0];
    const AccessPattern sbuf_side = store.ap(fields::DmaCopy::dst), dram_side = store.ap(fields::DmaCopy::src);
    store.set(fields::DmaCopy::dst, dram_side);
    store.set(fields::DmaCopy::src, sbuf_side);
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 0: operand 'dst': writes weight "
                                 "tensor 'W' (weights are read-only)"});
    c.tensors[0].role = TensorRole::Output;
    EXPECT_EQ(problems(c), Lines{});
}

TEST(Validator, OperandInASpaceTheOpcodeDoesNotTake) {
    Container c = small_program();
    c.streams[0].instructions[0].ap(fields::Matmul::dst).space = MemorySpace::Sbuf;
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: operand 'dst' is in sbuf, 'matmul' "
                                 "takes it from psum"});
}

TEST(Validator, RequiredOperandMissing) {
    Container c = small_program();
    c.streams[0].instructions[0].ap(fields::Matmul::moving) = AccessPattern{};
    EXPECT_EQ(problems(c), Lines{"section 3 (core 0 queue pe), instruction 0: operand 'moving' is none but 'matmul' "
                                 "needs it"});
}

TEST(Validator, ElementwiseShapesMustAgree) {
    Container c = small_program();
    Instruction copy;
    copy.opcode = Opcode::TensorCopy;
    copy.set(fields::TensorCopy::dst, sbuf(DType::Fp32, 64, 0, 128));
    copy.set(fields::TensorCopy::src, sbuf(DType::Bf16, 64, 0, 64));
    InstructionStream dve;
    dve.engine = Engine::Dve;
    dve.instructions.push_back(copy);
    c.streams.push_back(dve);
    c.canonicalize();
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dve), instruction 0: operand 'src' has 64 elements per "
                                 "partition, 'dst' has 128"});
}

// A dropout probability outside [0, 1] and a generator state that is not two int32 are refused.
TEST(Validator, DropoutProbabilityAndGeneratorState) {
    Container c = small_program();
    Instruction drop;
    drop.opcode = Opcode::Dropout;
    drop.set(fields::Dropout::dst, sbuf(DType::Fp32, 64, 0, 64));
    drop.set(fields::Dropout::src, sbuf(DType::Fp32, 64, 0, 64));
    drop.set_f32(fields::Dropout::probability, 1.5f);
    Instruction seed;
    seed.opcode = Opcode::SetRngSeed;
    seed.set(fields::SetRngSeed::state, sbuf(DType::Fp32, 1, 0, 2));
    InstructionStream dve;
    dve.engine = Engine::Dve;
    dve.instructions = {seed, drop};
    c.streams.push_back(dve);
    c.canonicalize();
    EXPECT_EQ(problems(c), (Lines{"section 4 (core 0 queue dve), instruction 0: operand 'state' must be two int32 "
                                  "elements (seed, execution)",
                                  "section 4 (core 0 queue dve), instruction 1: dropout probability 1.500000 is outside [0, 1]"}));
}

TEST(Validator, CollectiveBeyondTheProgramsCores) {
    Container c = small_program();
    Instruction ar;
    ar.opcode = Opcode::AllReduce;
    ar.set(fields::AllReduce::dst, sbuf(DType::Fp32, 64, 0, 64));
    ar.set(fields::AllReduce::src, sbuf(DType::Fp32, 64, 0, 64));
    ar.set_enum(fields::AllReduce::op, ReduceOp::Add);
    ar.set_u32(fields::AllReduce::first_core, 0);
    ar.set_u32(fields::AllReduce::core_count, 2);
    c.streams[1].instructions.push_back(ar);
    EXPECT_EQ(problems(c), Lines{"section 4 (core 0 queue dma0), instruction 1: cores [0, 2) beyond the program's 1 "
                                 "cores"});
}

TEST(Validator, HostileNumbersDoNotOverflow) {
    Container c = small_program();
    AccessPattern& ap = c.streams[1].instructions[0].ap(fields::DmaCopy::src);
    ap.offset = ~uint64_t(0);
    ap.partition_stride = INT32_MAX;
    ap.partition_count = UINT32_MAX;
    ap.dim_count = 4;
    for (auto& d : ap.dims) d = {INT32_MAX, UINT32_MAX};
    auto lines = problems(c);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("operand 'src': names more than 4294967296 elements"), std::string::npos) << lines[0];
    // Within the element limit, the byte range still does not wrap. (The reference is taken again:
    // validating shares the instruction list copy-on-write, so the old one may name another copy.)
    AccessPattern& within = c.streams[1].instructions[0].ap(fields::DmaCopy::src);
    within.partition_count = 1;
    within.dim_count = 2;
    within.dims[0] = within.dims[1] = {INT32_MAX, 65536};
    lines = problems(c);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("outside tensor 'W'"), std::string::npos) << lines[0];
}

// Stride-0 dimensions repeat one element 2^128 times; the timing model would burst that forever.
TEST(Validator, RepeatingMoreThan2To32ElementsIsRefused) {
    Container c = small_program();
    AccessPattern& ap = c.streams[1].instructions[0].ap(fields::DmaCopy::src);
    ap.dim_count = 4;
    for (auto& d : ap.dims) d = {0, UINT32_MAX};
    const auto lines = problems(c);
    ASSERT_FALSE(lines.empty());
    EXPECT_NE(lines[0].find("operand 'src': names more than 4294967296 elements (the most one operand may)"),
              std::string::npos) << lines[0];
}

}  // namespace
}  // namespace nsim::isa
