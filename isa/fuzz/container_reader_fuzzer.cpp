// libFuzzer target: arbitrary bytes through the container reader, and whatever it accepts through
// the validator, the disassembler and the writer. Any crash or sanitizer report is a bug; a
// ContainerError is the expected answer to garbage.
#include <cstddef>
#include <cstdint>

#include "isa/container_io.h"
#include "isa/text_format.h"
#include "isa/validator.h"

namespace {

// A fictitious generation; the fuzzer checks robustness, not any real chip's numbers.
nsim::isa::GenerationLimits fuzz_limits(uint32_t generation) {
    nsim::isa::GenerationLimits l;
    l.generation = generation;
    l.engines = nsim::isa::table_names::ANY_ENGINE;
    l.sbuf_partitions = 64;
    l.sbuf_bytes_per_partition = 4096;
    l.psum_partitions = 64;
    l.psum_bytes_per_partition = 1024;
    l.max_contraction = 64;
    l.max_stationary_free = 64;
    l.max_moving_free = 256;
    l.semaphores = 16;
    l.dma_queues = 4;
    return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    nsim::isa::Container container;
    try {
        container = nsim::isa::read_container(data, size);
    } catch (const nsim::isa::ContainerError&) {
        return 0;
    }
    const auto diagnostics = nsim::isa::validate(container, fuzz_limits(container.generation));
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
    return 0;
}
