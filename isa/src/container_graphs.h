// The graph names section of a container (FORMAT.md §4.6) and the rule that ties streams to graphs:
// written, parsed and checked here for container_io.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/container.h"
#include "isa/container_io.h"
#include "section_parser.h"

namespace nsim::isa {

std::vector<uint8_t> graph_name_bytes(const Container&);
void parse_graph_names(SectionParser&, Container&);
// Every stream's graph is one the file names (0 when it names none). ContainerError otherwise.
void check_stream_graphs(const Container&, const ContainerLayout&);

}  // namespace nsim::isa
