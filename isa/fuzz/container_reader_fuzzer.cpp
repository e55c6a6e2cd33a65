// libFuzzer target: arbitrary bytes through the container reader, and whatever it accepts through
// the validator, the disassembler and the writer. Any crash or sanitizer report is a bug; a
// ContainerError is the expected answer to garbage.
#include <boost/crc.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "isa/container_io.h"
#include "isa/text_format.h"
#include "isa/validator.h"
#include "isa_test_support.h"  // tests/isa: the made-up generation the isa tests use

namespace {

// The fuzzers check robustness, not any real chip's numbers: the isa tests' made-up generation.
nsim::isa::GenerationLimits limits_for(uint32_t generation) {
    nsim::isa::GenerationLimits l = nsim::isa::test::made_up_limits();
    l.generation = generation;
    return l;
}

uint32_t crc32(const uint8_t* p, size_t n) {
    boost::crc_32_type crc;
    crc.process_bytes(p, n);
    return crc.checksum();
}

uint64_t get(const std::vector<uint8_t>& b, size_t at, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= uint64_t(b[at + i]) << (8 * i);
    return v;
}

void put(std::vector<uint8_t>& b, size_t at, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// Random mutations almost never keep the CRCs right, which would stop the fuzzer at the checksum
// checks; a copy with every checksum (and the file size) recomputed reaches the section parsers.
// Offsets follow isa/FORMAT.md; anything out of range is left for the reader to reject.
std::vector<uint8_t> with_checksums_repaired(const uint8_t* data, size_t size) {
    std::vector<uint8_t> b(data, data + size);
    if (b.size() < nsim::isa::kHeaderBytes) return b;
    put(b, 32, b.size(), 8);
    const uint64_t count = get(b, 20, 4), table = get(b, 24, 8);
    const uint64_t table_size = count * nsim::isa::kSectionEntryBytes;
    if (table <= b.size() && table_size <= b.size() - table) {
        for (uint64_t s = 0; s < count; ++s) {
            const size_t entry = size_t(table + s * nsim::isa::kSectionEntryBytes);
            const uint64_t off = get(b, entry + 8, 8), len = get(b, entry + 16, 8);
            if (off <= b.size() && len <= b.size() - off) put(b, entry + 24, crc32(&b[off], size_t(len)), 4);
        }
        put(b, 40, crc32(&b[table], size_t(table_size)), 4);
    }
    put(b, 60, crc32(b.data(), 60), 4);
    return b;
}

void exercise(const uint8_t* data, size_t size) {
    nsim::isa::Container container;
    try {
        container = nsim::isa::read_container(data, size);
    } catch (const nsim::isa::ContainerError&) {
        return;
    }
    const auto diagnostics = nsim::isa::validate(container, limits_for(container.generation));
    for (const auto& d : diagnostics) (void)d.text();
    const std::string text = nsim::isa::disassemble(container);
    const auto bytes = nsim::isa::write_container(container);
    // What the writer produces from an accepted file must itself be accepted.
    (void)nsim::isa::read_container(bytes);
    try {
        (void)nsim::isa::assemble(text, "fuzz.s");
    } catch (const nsim::isa::AssemblyError&) {
        // Files the reader accepts may still name things the text cannot (a tensor index out of range).
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    exercise(data, size);
    const std::vector<uint8_t> repaired = with_checksums_repaired(data, size);
    exercise(repaired.data(), repaired.size());
    return 0;
}
