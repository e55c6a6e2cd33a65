// A program checked for what the hardware would not tell its author: two engine queues touching the
// same SBUF, PSUM, device- or host-memory bytes, at least one writing, with no semaphore chain ordering
// them (happens_before.h); reads of bytes nothing wrote before them; tensors placed over each other;
// waits no order of the queues can satisfy. Per graph (isa::Container::graphs, in index order) and per
// core: cores order each other through collectives and
// barriers, which this does not follow, so device memory shared between cores is checked per core.
//
// Found with FastTrack's method (the last write and the last read per queue of every byte, checked
// as the instructions are visited in an order the semaphores allow): every racing byte is reported
// through at least one racing pair, not necessarily through every pair.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container.h"

namespace nsim::sim::race_check {

struct InstructionRef {
    uint32_t core = 0;
    isa::Engine engine = isa::Engine::Pe;
    uint8_t queue = 0;
    uint32_t index = 0;      // in its queue, from 0
    std::string text() const;   // "core 0 act #3 (activation)"
    isa::Opcode opcode = isa::Opcode::Invalid;
};

enum class FindingKind { Race, UnwrittenRead, OverlappingTensors, Deadlock };

struct Finding {
    FindingKind kind;
    std::string message;              // one line, naming both instructions (or both tensors), and the graph
                                      // first ("graph 'optimizer': ...") in a program of named graphs
    InstructionRef first, second;     // Race: the earlier-visited and the later; UnwrittenRead: `first` only
};

// How much of the program the check simulated: a core whose instruction streams in a graph are those
// of a core already found clean in it (the cores of a data-parallel program) would give the same
// findings, so it is not checked again.
struct CheckCoverage {
    size_t core_graphs = 0;    // (core, graph) pairs with instructions
    size_t repeated = 0;       // of which skipped: the same streams as a clean core's of the same graph
};

std::vector<Finding> check(const isa::Container& program, CheckCoverage* coverage = nullptr);

}  // namespace nsim::sim::race_check
