// Writing a Container to bytes and reading it back. The reader never trusts its input: every
// offset, size, count, checksum and encoded value is checked, and the first problem is a
// ContainerError whose what() is one line naming where it is (header, section, entry, instruction).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "isa/container.h"

namespace nsim::isa {

class ContainerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Section kinds of the section table (FORMAT.md).
enum class SectionKind : uint16_t {
    InstructionStream = 1, TensorTable = 2, Data = 3, Metadata = 4, SemaphoreNames = 5, GraphNames = 6
};

constexpr size_t kHeaderBytes = 64;
constexpr size_t kSectionEntryBytes = 32;

std::vector<uint8_t> write_container(const Container&);
// The same bytes straight to a file, a section at a time (container_writer.cpp says why).
void write_container_file(const std::filesystem::path&, const Container&);
Container read_container(const uint8_t* data, size_t size);
Container read_container(const std::vector<uint8_t>& bytes);
// The container in a file, read a section at a time (container_source.h says why), as
// read_container(read_file(path)) reads it; every error's what() starts with the path.
Container read_container_file(const std::filesystem::path& path);

// File helpers; I/O problems are ContainerErrors too ("cannot open X: reason").
std::vector<uint8_t> read_file(const std::filesystem::path&);
void write_file(const std::filesystem::path&, const std::vector<uint8_t>&);

}  // namespace nsim::isa

namespace nsim::isa {

// The header and section table as stored, after their own checks (bounds, checksums, overlaps);
// what `neuron-objdump -h` prints.
struct SectionEntry {
    SectionKind kind = SectionKind::Metadata;
    Engine engine = Engine::Pe;
    uint8_t queue = 0;
    uint32_t core = 0;
    uint32_t graph = 0;   // instruction streams of a version 3 file: the graph (Container::graphs)
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t crc32 = 0;
};

struct ContainerLayout {
    uint32_t format_version = 0;
    uint32_t generation = 0;
    uint32_t cores_needed = 0;
    uint64_t file_size = 0;
    uint64_t section_table_offset = 0;
    std::vector<SectionEntry> sections;
};

ContainerLayout read_layout(const uint8_t* data, size_t size);
std::string_view name_of(SectionKind);
// "tensor table", "core 0 queue pe", ...
std::string describe(const SectionEntry&);

}  // namespace nsim::isa
