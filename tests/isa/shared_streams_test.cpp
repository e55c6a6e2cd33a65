// Format version 2: identical streams and identical tensor contents are stored once in the file, and
// a program read back holds each distinct stream once in memory, whichever core runs it. Version 1
// files are still read; in them a shared stream is the overlap it always was.
#include <gtest/gtest.h>

#include "isa/stream_cache.h"
#include "isa_test_support.h"

namespace nsim::isa {
namespace {

using namespace test;

// small_program() on `cores` cores, every core running the same two streams.
Container replicated(uint32_t cores) {
    const Container one = small_program();
    Container c = one;
    c.cores_needed = cores;
    c.streams.clear();
    for (uint32_t core = 0; core < cores; ++core)
        for (InstructionStream s : one.streams) {
            s.core = core;
            c.streams.push_back(s);
        }
    c.canonicalize();
    return c;
}

TEST(SharedStreams, IdenticalStreamsAreStoredOnce) {
    const std::vector<uint8_t> one = write_container(replicated(1));
    const std::vector<uint8_t> four = write_container(replicated(4));
    const ContainerLayout layout = read_layout(four.data(), four.size());
    ASSERT_EQ(layout.format_version, 2u);
    ASSERT_EQ(layout.sections.size(), 3u + 8u + 1u);
    for (uint32_t core = 1; core < 4; ++core)
        for (size_t q = 0; q < 2; ++q) {
            const SectionEntry& first = layout.sections[3 + q];
            const SectionEntry& copy = layout.sections[3 + 2 * core + q];
            EXPECT_EQ(copy.core, core);
            EXPECT_EQ(copy.offset, first.offset);
            EXPECT_EQ(copy.size, first.size);
        }
    // Only the 6 extra section-table entries (32 B each) grow the file, plus the alignment they shift.
    EXPECT_LE(four.size(), one.size() + 6 * kSectionEntryBytes + 64);
}

TEST(SharedStreams, ReadBackEachDistinctStreamIsHeldOnce) {
    const Container program = replicated(3);
    const Container back = read_container(write_container(program));
    ASSERT_EQ(back.streams.size(), 6u);
    for (size_t i = 0; i < back.streams.size(); ++i) {
        EXPECT_EQ(back.streams[i].core, program.streams[i].core);
        EXPECT_EQ(back.streams[i].instructions, program.streams[i].instructions);
        EXPECT_TRUE(back.streams[i].instructions.shares_body_with(back.streams[i % 2].instructions)) << i;
    }
    EXPECT_FALSE(back.streams[0].instructions.shares_body_with(back.streams[1].instructions));
    EXPECT_EQ(write_container(back), write_container(program));
}

TEST(SharedStreams, ReadingTheSameBytesAgainDecodesNothing) {
    const std::vector<uint8_t> bytes = write_container(replicated(2));
    const Container first = read_container(bytes);
    const StreamCacheCounters before = stream_cache_counters();
    const Container second = read_container(bytes);
    const StreamCacheCounters after = stream_cache_counters();
    EXPECT_EQ(after.decoded_bytes, before.decoded_bytes);
    EXPECT_GT(after.reused_bytes, before.reused_bytes);
    EXPECT_TRUE(second.streams[0].instructions.shares_body_with(first.streams[0].instructions));
}

TEST(SharedStreams, AChangedByteDecodesToWhatItSays) {
    const Container program = replicated(1);
    std::vector<uint8_t> bytes = write_container(program);
    const Container original = read_container(bytes);
    // The pe stream's matmul: its accumulate field (the last 4 bytes of the instruction) 0 -> 1.
    const uint64_t end = section_offset(bytes, 3) + section_size(bytes, 3);
    put(bytes, end - 4, uint64_t(AccumulateMode::Accumulate), 4);
    refresh_checksums(bytes);
    const Container changed = read_container(bytes);
    EXPECT_FALSE(changed.streams[0].instructions.shares_body_with(original.streams[0].instructions));
    EXPECT_EQ(changed.streams[0].instructions[0].accumulate(fields::Matmul::acc), AccumulateMode::Accumulate);
    EXPECT_EQ(original.streams[0].instructions[0].accumulate(fields::Matmul::acc), AccumulateMode::Overwrite);
}

TEST(SharedStreams, IdenticalTensorContentsAreStoredOnce) {
    Container program = small_program();
    TensorInfo twin = program.tensors[0];
    twin.name = "W2";
    twin.offset = 8192;
    program.tensors.push_back(twin);
    const std::vector<uint8_t> one = write_container(small_program());
    const std::vector<uint8_t> two = write_container(program);
    const ContainerLayout a = read_layout(one.data(), one.size()), b = read_layout(two.data(), two.size());
    EXPECT_EQ(a.sections.back().kind, SectionKind::Data);
    EXPECT_EQ(b.sections.back().size, a.sections.back().size);
    const Container back = read_container(two);
    EXPECT_EQ(back.tensors, program.tensors);
}

// The file as a version 1 writer wrote it: the same bytes with version 1 in the header.
std::vector<uint8_t> as_version_1(std::vector<uint8_t> bytes) {
    put(bytes, 8, 1, 4);
    refresh_checksums(bytes);
    return bytes;
}

TEST(SharedStreams, AVersion1FileIsRead) {
    const Container program = small_program();
    const Container back = read_container(as_version_1(write_container(program)));
    ASSERT_EQ(back.streams.size(), 2u);
    EXPECT_EQ(back.streams[0].instructions, program.streams[0].instructions);
    EXPECT_EQ(back.tensors, program.tensors);
}

TEST(SharedStreams, InVersion1ASharedStreamIsAnOverlap) {
    EXPECT_EQ(read_error(as_version_1(write_container(replicated(2)))),
              "section 5 (core 1 queue pe) overlaps section 3 (core 0 queue pe)");
}

TEST(SharedStreams, AStreamMayNotSharePartOfAnother) {
    std::vector<uint8_t> bytes = write_container(replicated(2));
    // Section 5 names section 3's bytes; make it start 16 bytes later (same end is not the same range).
    put(bytes, entry_at(bytes, 5) + 8, section_offset(bytes, 3) + 16, 8);
    put(bytes, entry_at(bytes, 5) + 16, section_size(bytes, 3) - 16, 8);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 5 (core 1 queue pe) overlaps section 3 (core 0 queue pe)");
}

}  // namespace
}  // namespace nsim::isa
