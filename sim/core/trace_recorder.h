// Records one slice per executed instruction and writes them as a Chrome trace (the JSON that
// chrome://tracing and Perfetto open): one process per program core, one thread (track) per engine
// queue, one complete ("X") event per instruction.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "isa/types.h"

namespace nsim::sim::core {

class TraceRecorder {
public:
    // Declares a track; returns its id for record().
    uint32_t add_track(uint32_t core, const std::string& core_label, const std::string& queue_name);
    void record(uint32_t track, isa::Opcode opcode, uint64_t start_ps, uint64_t duration_ps, uint32_t instruction,
                uint32_t iteration);

    size_t slices() const { return slices_.size(); }
    nlohmann::json to_json() const;
    void write(std::ostream& out) const;

private:
    struct Track {
        uint32_t core;
        std::string core_label;
        std::string name;
    };
    struct Slice {
        uint32_t track;
        isa::Opcode opcode;
        uint64_t start_ps, duration_ps;
        uint32_t instruction, iteration;
    };
    std::vector<Track> tracks_;
    std::vector<Slice> slices_;
};

}  // namespace nsim::sim::core
