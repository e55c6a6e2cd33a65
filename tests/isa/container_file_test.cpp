// Containers written straight to a file and read from one a section at a time
// (isa/src/container_writer.cpp, container_source.h): the same bytes as write_container, the same
// program as read_container, the same one-line errors with the file named first, and no encoding kept
// in a list the writer had to encode.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "common/temp_directory.h"
#include "isa_test_support.h"

namespace nsim::isa {
namespace {

using namespace test;

std::vector<uint8_t> file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// small_program() with a second core running the same streams (stored once) and two graphs, the
// second graph's pe stream a different one.
Container program_with_shared_streams_and_graphs() {
    Container c = small_program();
    c.cores_needed = 2;
    const std::vector<InstructionStream> first = c.streams;
    for (InstructionStream s : first) {
        s.core = 1;
        c.streams.push_back(s);
    }
    InstructionStream other = first[0];
    other.graph = 1;
    other.instructions.push_back(matmul(64, 64, 128));
    c.streams.push_back(other);
    c.graphs = {"forward", "backward"};
    c.canonicalize();
    return c;
}

class ContainerFile : public ::testing::Test {
protected:
    std::filesystem::path path(const std::string& name) const { return dir_.path() / name; }
    std::string file_read_error(const std::vector<uint8_t>& bytes) {
        write_file(path("damaged.bin"), bytes);
        try {
            read_container_file(path("damaged.bin"));
        } catch (const ContainerError& e) {
            return e.what();
        }
        return "(no error)";
    }
    nsim::test::TempDirectory dir_;
};

TEST_F(ContainerFile, WritesTheBytesWriteContainerMakes) {
    for (const Container& c : {small_program(), program_with_shared_streams_and_graphs()}) {
        write_container_file(path("p.bin"), c);
        EXPECT_EQ(file_bytes(path("p.bin")), write_container(c));
    }
    // Stored once: the second core's streams name the first core's bytes.
    const Container shared = program_with_shared_streams_and_graphs();
    const std::vector<uint8_t> bytes = write_container(shared);
    const ContainerLayout layout = read_layout(bytes.data(), bytes.size());
    EXPECT_EQ(layout.format_version, 3u);
    size_t distinct = 0;
    for (size_t i = 0; i < layout.sections.size(); ++i) {
        const SectionEntry& e = layout.sections[i];
        if (e.kind != SectionKind::InstructionStream) continue;
        bool seen = false;
        for (size_t j = 0; j < i; ++j) seen |= layout.sections[j].offset == e.offset && layout.sections[j].size == e.size;
        distinct += !seen;
    }
    EXPECT_EQ(distinct, 3u);  // pe and dma0 of graph 0, pe of graph 1
}

TEST_F(ContainerFile, ReadsWhatReadContainerReads) {
    const Container c = program_with_shared_streams_and_graphs();
    write_container_file(path("p.bin"), c);
    const Container back = read_container_file(path("p.bin"));
    const Container whole = read_container(file_bytes(path("p.bin")));
    EXPECT_EQ(back.graphs, c.graphs);
    EXPECT_EQ(back.tensors, c.tensors);
    EXPECT_EQ(back.metadata, c.metadata);
    ASSERT_EQ(back.streams.size(), c.streams.size());
    for (size_t i = 0; i < c.streams.size(); ++i) {
        EXPECT_EQ(back.streams[i].instructions, c.streams[i].instructions) << i;
        EXPECT_EQ(back.streams[i].graph, whole.streams[i].graph) << i;
        EXPECT_EQ(back.streams[i].section, whole.streams[i].section) << i;
    }
    EXPECT_EQ(write_container(back), write_container(c));
}

// The writer encodes a built list to write it and keeps nothing: a program's encoding is not held
// next to its instructions (a list read from a file keeps the bytes it was decoded from).
TEST_F(ContainerFile, TheWriterKeepsNoEncodingInTheLists) {
    const Container c = small_program();
    ASSERT_EQ(c.streams[0].instructions.known_code(), nullptr);
    write_container_file(path("p.bin"), c);
    write_container(c);
    EXPECT_EQ(c.streams[0].instructions.known_code(), nullptr);
    EXPECT_NE(read_container_file(path("p.bin")).streams[0].instructions.known_code(), nullptr);
}

TEST_F(ContainerFile, ErrorsAreReadContainersNamingTheFile) {
    const std::string file = path("damaged.bin").string();
    std::vector<uint8_t> bytes = write_container(small_program());
    bytes[section_offset(bytes, 3) + 9] ^= 0x40;  // inside the pe stream: its checksum no longer matches
    EXPECT_EQ(file_read_error(bytes), file + ": " + read_error(bytes));
    EXPECT_NE(read_error(bytes).find("checksum mismatch"), std::string::npos);
    bytes = write_container(small_program());
    bytes[0] = 'X';
    EXPECT_EQ(file_read_error(bytes), file + ": header: wrong magic (not a neuron-sim executable)");
    bytes = write_container(small_program());
    bytes.resize(10);
    EXPECT_EQ(file_read_error(bytes), file + ": truncated: the file is 10 bytes, shorter than the 64-byte header");
    bytes = write_container(small_program());
    bytes.push_back(0);
    EXPECT_EQ(file_read_error(bytes), file + ": " + read_error(bytes));
    for (const std::filesystem::path& unreadable : std::vector<std::filesystem::path>{path("missing.bin"), dir_.path()}) {
        try {
            read_container_file(unreadable);
            ADD_FAILURE() << unreadable;
        } catch (const ContainerError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(unreadable.string(), 0), 0u) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace nsim::isa
