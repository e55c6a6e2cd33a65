// libFuzzer target: arbitrary text through the assembler, and whatever it accepts through the
// validator, the writer, the reader and the disassembler, whose text must assemble to the same
// bytes again. Any crash or sanitizer report is a bug; an AssemblyError is the expected answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    nsim::isa::Assembly assembly;
    try {
        assembly = nsim::isa::assemble(text, "fuzz.s");
    } catch (const nsim::isa::AssemblyError& e) {
        (void)e.what();
        return 0;
    }
    const auto diagnostics =
        nsim::isa::validate(assembly.container, limits_for(assembly.container.generation));
    for (const auto& d : diagnostics) (void)assembly.locate(d);
    std::vector<uint8_t> bytes;
    try {
        bytes = nsim::isa::write_container(assembly.container);
    } catch (const nsim::isa::ContainerError&) {
        return 0;  // a name longer than the format holds
    }
    const nsim::isa::Container back = nsim::isa::read_container(bytes);
    const std::string again = nsim::isa::disassemble(back);
    // A valid program's disassembly assembles to the same bytes (neuron-objdump | neuron-as round trip).
    if (diagnostics.empty() && nsim::isa::write_container(nsim::isa::assemble(again, "again.s").container) != bytes)
        std::abort();
    return 0;
}
