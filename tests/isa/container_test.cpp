// The container reader against crafted damage: each structural error is one exact line.
#include <gtest/gtest.h>

#include "isa_test_support.h"

namespace nsim::isa {
namespace {

using namespace test;

class ContainerReader : public ::testing::Test {
protected:
    Container program = small_program();
    std::vector<uint8_t> bytes = write_container(program);
};

TEST_F(ContainerReader, WrittenProgramReadsBackEqual) {
    const Container back = read_container(bytes);
    EXPECT_EQ(back.generation, 2u);
    EXPECT_EQ(back.cores_needed, 1u);
    EXPECT_EQ(back.metadata, program.metadata);
    EXPECT_EQ(back.tensors, program.tensors);
    EXPECT_EQ(back.semaphore_names, program.semaphore_names);
    ASSERT_EQ(back.streams.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(back.streams[i].instructions, program.streams[i].instructions);
        EXPECT_EQ(back.streams[i].section, program.streams[i].section);
        EXPECT_EQ(back.streams[i].engine, program.streams[i].engine);
    }
    EXPECT_EQ(write_container(back), bytes);
    EXPECT_EQ(back.metadata_value("model"), "unit-test");
}

TEST_F(ContainerReader, LayoutMatchesTheDocumentedOrder) {
    const ContainerLayout layout = read_layout(bytes.data(), bytes.size());
    ASSERT_EQ(layout.sections.size(), 6u);
    EXPECT_EQ(layout.sections[0].kind, SectionKind::Metadata);
    EXPECT_EQ(layout.sections[1].kind, SectionKind::TensorTable);
    EXPECT_EQ(layout.sections[2].kind, SectionKind::SemaphoreNames);
    EXPECT_EQ(describe(layout.sections[3]), "core 0 queue pe");
    EXPECT_EQ(describe(layout.sections[4]), "core 0 queue dma0");
    EXPECT_EQ(layout.sections[5].kind, SectionKind::Data);
    EXPECT_EQ(layout.sections[5].offset % 64, 0u);
    EXPECT_EQ(layout.file_size, bytes.size());
}

TEST_F(ContainerReader, TruncatedBelowHeader) {
    bytes.resize(10);
    EXPECT_EQ(read_error(bytes), "truncated: the file is 10 bytes, shorter than the 64-byte header");
}

TEST_F(ContainerReader, TruncatedFile) {
    const size_t full = bytes.size();
    bytes.resize(full - 100);
    EXPECT_EQ(read_error(bytes), "truncated: the header says the file is " + std::to_string(full) + " bytes, it is " +
                                     std::to_string(full - 100));
}

TEST_F(ContainerReader, TrailingBytes) {
    bytes.push_back(0);
    EXPECT_EQ(read_error(bytes), "header: the file is " + std::to_string(bytes.size()) + " bytes, the header says " +
                                     std::to_string(bytes.size() - 1));
}

TEST_F(ContainerReader, WrongMagic) {
    bytes[0] = 'X';
    EXPECT_EQ(read_error(bytes), "header: wrong magic (not a neuron-sim executable)");
}

TEST_F(ContainerReader, WrongVersion) {
    put(bytes, 8, 4, 4);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "header: format version 4 is not supported (this reader reads versions 1 to 3)");
}

TEST_F(ContainerReader, BadHeaderChecksum) {
    const uint32_t stored = uint32_t(get(bytes, kHeaderCrc, 4));
    put(bytes, 16, 3, 4);  // cores needed, checksum left stale
    EXPECT_EQ(read_error(bytes), "header: checksum mismatch (stored " + hex32(stored) + ", computed " +
                                     hex32(crc32(bytes.data(), kHeaderCrc)) + ")");
}

TEST_F(ContainerReader, BadSectionTableChecksum) {
    put(bytes, entry_at(bytes, 0) + 28, 1, 1);
    const uint32_t stored = uint32_t(get(bytes, kTableCrc, 4));
    const uint32_t computed = crc32(&bytes[get(bytes, kTableOffset, 8)], 6 * kSectionEntryBytes);
    EXPECT_EQ(read_error(bytes), "section table: checksum mismatch (stored " + hex32(stored) + ", computed " +
                                     hex32(computed) + ")");
}

TEST_F(ContainerReader, BadSectionChecksum) {
    const uint64_t off = section_offset(bytes, 1);
    const uint32_t stored = uint32_t(get(bytes, entry_at(bytes, 1) + 24, 4));
    bytes[off + 6] ^= 0x20;  // a letter of the first tensor's name
    EXPECT_EQ(read_error(bytes), "section 1 (tensor table): checksum mismatch (stored " + hex32(stored) +
                                     ", computed " + hex32(crc32(&bytes[off], section_size(bytes, 1))) + ")");
}

TEST_F(ContainerReader, SectionOutsideTheFile) {
    const uint64_t off = section_offset(bytes, 1);
    put(bytes, entry_at(bytes, 1) + 16, 1000000, 8);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 1 (tensor table): bytes [" + std::to_string(off) + ", " +
                                     std::to_string(off + 1000000) + ") lie outside the file (" +
                                     std::to_string(bytes.size()) + " bytes)");
}

TEST_F(ContainerReader, SectionOffsetOverflowIsOutsideTheFile) {
    put(bytes, entry_at(bytes, 2) + 8, ~uint64_t(0), 8);
    refresh_checksums(bytes);
    EXPECT_NE(read_error(bytes).find("section 2 (semaphore names): bytes ["), std::string::npos);
}

TEST_F(ContainerReader, OverlappingSections) {
    put(bytes, entry_at(bytes, 2) + 8, section_offset(bytes, 1), 8);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 2 (semaphore names) overlaps section 1 (tensor table)");
}

TEST_F(ContainerReader, SectionOverlappingTheHeader) {
    put(bytes, entry_at(bytes, 0) + 8, 8, 8);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 0 (metadata) overlaps the header");
}

TEST_F(ContainerReader, UnknownOpcode) {
    put(bytes, section_offset(bytes, 3) + 8, 0x00ff, 2);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 3 (core 0 queue pe), instruction 0: unknown opcode 0x00ff");
}

TEST_F(ContainerReader, TruncatedInstruction) {
    // Claim two instructions in a stream that holds one.
    put(bytes, section_offset(bytes, 4), 2, 4);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 4 (core 0 queue dma0), instruction 1: truncated: an instruction header "
                                 "needs 16 bytes, 0 left");
}

TEST_F(ContainerReader, AbsurdInstructionCount) {
    put(bytes, section_offset(bytes, 4), 0xffffffff, 4);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 4 (core 0 queue dma0): claims 4294967295 instructions in " +
                                     std::to_string(section_size(bytes, 4) - 8) + " bytes");
}

TEST_F(ContainerReader, StreamForACoreBeyondTheHeader) {
    put(bytes, entry_at(bytes, 4) + 4, 1, 4);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 4 (core 1 queue dma0): core 1 but the header says 1 cores are needed");
}

TEST_F(ContainerReader, TwoStreamsForOneQueue) {
    put(bytes, entry_at(bytes, 4) + 2, uint8_t(Engine::Pe), 1);
    put(bytes, entry_at(bytes, 4) + 3, 0, 1);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 4 (core 0 queue pe): a second stream for the same queue");
}

TEST_F(ContainerReader, UnknownSectionKind) {
    put(bytes, entry_at(bytes, 2), 77, 2);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "section 2: unknown kind 77");
}

TEST_F(ContainerReader, TensorDataSizeDisagreesWithShape) {
    Container c = small_program();
    c.tensors[0].shape = {64, 32};
    auto damaged = write_container(c);
    EXPECT_EQ(read_error(damaged), "section 1 (tensor table), entry 0 ('W'): data is 8192 bytes, the tensor is 4096");
}

TEST_F(ContainerReader, ZeroCores) {
    put(bytes, 16, 0, 4);
    refresh_checksums(bytes);
    EXPECT_EQ(read_error(bytes), "header: cores needed is 0");
}

TEST_F(ContainerReader, EveryTruncationIsAnErrorNotACrash) {
    for (size_t n = 0; n < bytes.size(); n += 7) {
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
        EXPECT_NE(read_error(cut), "(no error)") << n;
    }
}

}  // namespace
}  // namespace nsim::isa
