// isa/access_pattern_pool.h: an instruction names its access patterns by id, each distinct pattern is
// stored once, and editing one instruction's pattern never changes another's.
#include <gtest/gtest.h>

#include <vector>

#include "isa/encoding.h"
#include "isa/instruction.h"

namespace nsim::isa {
namespace {

AccessPattern sbuf_tile(uint64_t offset) {
    AccessPattern ap;
    ap.space = MemorySpace::Sbuf;
    ap.dtype = DType::Bf16;
    ap.dim_count = 1;
    ap.partition_count = 128;
    ap.offset = offset;
    ap.dims[0] = {1, 512};
    return ap;
}

TEST(AccessPatternPool, AnInstructionTakesAFewTensOfBytes) {
    // Was ~520 bytes with its patterns inline (issue 12).
    EXPECT_LE(sizeof(Instruction), 96u);
}

TEST(AccessPatternPool, EqualPatternsShareOneIdAndAbsentIsZero) {
    EXPECT_EQ(intern_pattern(AccessPattern{}), kAbsentPattern);
    EXPECT_FALSE(pattern_of(kAbsentPattern).present());
    const uint32_t a = intern_pattern(sbuf_tile(4096));
    const uint64_t stored = pooled_pattern_count();
    EXPECT_EQ(intern_pattern(sbuf_tile(4096)), a);
    EXPECT_EQ(pooled_pattern_count(), stored);  // nothing new stored
    const uint32_t b = intern_pattern(sbuf_tile(8192));
    EXPECT_NE(a, b);
    EXPECT_EQ(pattern_of(a), sbuf_tile(4096));
    EXPECT_EQ(pattern_of(b), sbuf_tile(8192));
}

TEST(AccessPatternPool, ManyPatternsKeepTheirIds) {
    std::vector<uint32_t> ids;
    for (uint64_t i = 0; i < 40000; ++i) ids.push_back(intern_pattern(sbuf_tile(i * 2)));  // crosses chunks and regrowths
    for (uint64_t i = 0; i < ids.size(); ++i) {
        ASSERT_EQ(pattern_of(ids[i]).offset, i * 2);
        ASSERT_EQ(intern_pattern(sbuf_tile(i * 2)), ids[i]);
    }
}

TEST(AccessPatternPool, EditingAnInstructionLeavesItsCopiesAlone) {
    Instruction matmul;
    matmul.opcode = Opcode::Matmul;
    matmul.set(fields::Matmul::moving, sbuf_tile(0));
    Instruction copy = matmul;
    Instruction other;
    other.opcode = Opcode::Matmul;
    other.set(fields::Matmul::moving, sbuf_tile(0));
    EXPECT_EQ(copy, other);

    matmul.ap(fields::Matmul::moving).offset = 1024;
    EXPECT_EQ(matmul.ap(fields::Matmul::moving).offset, 1024u);
    EXPECT_EQ(copy.ap(fields::Matmul::moving).offset, 0u);
    EXPECT_EQ(other.ap(fields::Matmul::moving).offset, 0u);
    EXPECT_NE(matmul, copy);
    // Equality is by value: an edited pattern equal to an interned one compares equal.
    matmul.ap(fields::Matmul::moving).offset = 0;
    EXPECT_EQ(matmul, copy);
}

TEST(AccessPatternPool, DecodedInstructionsShareTheirPatterns) {
    Instruction in;
    in.opcode = Opcode::TensorCopy;
    in.set(fields::TensorCopy::dst, sbuf_tile(65536)).set(fields::TensorCopy::src, sbuf_tile(131072));
    std::vector<uint8_t> bytes;
    encode(in, bytes);
    Instruction first, second;
    decode(bytes.data(), bytes.size(), first);
    decode(bytes.data(), bytes.size(), second);
    EXPECT_EQ(first, in);
    EXPECT_EQ(first.fields[fields::TensorCopy::dst].pattern, second.fields[fields::TensorCopy::dst].pattern);
    EXPECT_EQ(first.fields[fields::TensorCopy::src].pattern, in.fields[fields::TensorCopy::src].pattern);
}

}  // namespace
}  // namespace nsim::isa
