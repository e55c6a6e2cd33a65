#include "container_graphs.h"

#include <set>
#include <string>

namespace nsim::isa {

std::vector<uint8_t> graph_name_bytes(const Container& c) {
    std::vector<uint8_t> out;
    bytes::Writer w(out);
    w.u32(uint32_t(c.graphs.size()));
    for (const std::string& name : c.graphs) {
        if (name.empty() || name.size() > 0xFFFF)
            throw ContainerError("graph name '" + name.substr(0, 32) + "' must be 1 to 65535 bytes long");
        w.u16(uint16_t(name.size()));
        w.raw(name.data(), name.size());
    }
    return out;
}

void parse_graph_names(SectionParser& p, Container& c) {
    const uint32_t count = p.read("", [](auto& in) { return in.u32(); });
    std::set<std::string> names;
    for (uint32_t i = 0; i < count; ++i) {
        const std::string where = ", entry " + std::to_string(i);
        std::string name(p.read(where, [](auto& in) { return in.text(in.u16()); }));
        if (name.empty()) p.fail(where, "empty graph name");
        if (!names.insert(name).second) p.fail(where, "graph name '" + name + "' is used twice");
        c.graphs.push_back(std::move(name));
    }
    if (count == 0) p.fail("", "no graph names (a program without graphs has no such section)");
    if (p.in().remaining()) p.fail("", std::to_string(p.in().remaining()) + " bytes after the last entry");
}

void check_stream_graphs(const Container& c, const ContainerLayout& layout) {
    for (const InstructionStream& s : c.streams)
        if (s.graph >= c.graph_count())
            throw ContainerError("section " + std::to_string(s.section) + " (" + describe(layout.sections.at(s.section)) +
                                 "): graph " + std::to_string(s.graph) + " but the file names " +
                                 (c.graphs.empty() ? std::string("no graphs") : std::to_string(c.graphs.size()) + " graph(s)"));
}

}  // namespace nsim::isa
