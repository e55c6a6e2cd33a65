// neuron-objdump: prints an executable container as assembly text (which neuron-as turns back into
// the same bytes), or with -h its header and section table.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>

#include "common/tool_main.h"
#include "isa/container_io.h"
#include "isa/text_format.h"

namespace {

void print_summary(const nsim::isa::ContainerLayout& layout, const nsim::isa::Container& c) {
    fmt::print("format version {}\ntarget         NeuronCore-v{}\ncores needed   {}\nfile size      {} bytes\n",
               layout.format_version, layout.generation, layout.cores_needed, layout.file_size);
    for (const auto& [key, value] : c.metadata) fmt::print("meta           {} = {}\n", key, value);
    fmt::print("tensors        {}\nsections       {} (table at 0x{:x})\n", c.tensors.size(), layout.sections.size(),
               layout.section_table_offset);
    fmt::print("{:>4}  {:<24} {:>12} {:>12}  {:<10}  {}\n", "idx", "section", "offset", "size", "crc32", "contents");
    for (size_t i = 0; i < layout.sections.size(); ++i) {
        const auto& s = layout.sections[i];
        std::string contents;
        if (s.kind == nsim::isa::SectionKind::InstructionStream) {
            for (const auto& stream : c.streams)
                if (stream.section == i) contents = fmt::format("{} instructions", stream.instructions.size());
        } else if (s.kind == nsim::isa::SectionKind::TensorTable) {
            contents = fmt::format("{} tensors", c.tensors.size());
        } else if (s.kind == nsim::isa::SectionKind::Metadata) {
            contents = fmt::format("{} entries", c.metadata.size());
        } else if (s.kind == nsim::isa::SectionKind::SemaphoreNames) {
            contents = fmt::format("{} names", c.semaphore_names.size());
        }
        fmt::print("{:>4}  {:<24} {:>#12x} {:>12}  0x{:08x}  {}\n", i, nsim::isa::describe(s), s.offset, s.size,
                   s.crc32, contents);
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("neuron-objdump: print an executable container as assembly text", "neuron-objdump");
    app.set_help_flag("--help", "print this help and exit");
    std::string input;
    bool headers = false;
    app.add_option("input", input, "container (.bin)")->required();
    app.add_flag("-h,--headers", headers, "print the header and section table instead of the program");
    return nsim::tools::run_tool(app, argc, argv, [&] {
        const auto bytes = nsim::isa::read_file(input);  // its errors name the file
        try {
            const auto container = nsim::isa::read_container(bytes);
            if (headers) print_summary(nsim::isa::read_layout(bytes.data(), bytes.size()), container);
            else fmt::print("{}", nsim::isa::disassemble(container));
        } catch (const std::exception& e) {
            throw nsim::tools::UserError(input + ": " + e.what());
        }
        return 0;
    });
}
