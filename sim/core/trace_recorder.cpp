#include "core/trace_recorder.h"

#include <set>

#include "isa/opcode_table.h"

namespace nsim::sim::core {

uint32_t TraceRecorder::add_track(uint32_t core, const std::string& core_label, const std::string& queue_name) {
    tracks_.push_back({core, core_label, queue_name});
    return uint32_t(tracks_.size() - 1);
}

void TraceRecorder::record(uint32_t track, isa::Opcode opcode, uint64_t start_ps, uint64_t duration_ps,
                           uint32_t instruction, uint32_t iteration) {
    slices_.push_back({track, opcode, start_ps, duration_ps, instruction, iteration});
}

// Chrome trace timestamps are microseconds; fractional values keep the picosecond resolution.
nlohmann::json TraceRecorder::to_json() const {
    nlohmann::json events = nlohmann::json::array();
    std::set<uint32_t> cores;
    for (uint32_t t = 0; t < tracks_.size(); ++t) {
        const Track& track = tracks_[t];
        if (cores.insert(track.core).second)
            events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", track.core}, {"tid", 0},
                              {"args", {{"name", track.core_label}}}});
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", track.core}, {"tid", t},
                          {"args", {{"name", track.name}}}});
        events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", track.core}, {"tid", t},
                          {"args", {{"sort_index", t}}}});
    }
    for (const Slice& s : slices_) {
        const Track& track = tracks_[s.track];
        events.push_back({{"ph", "X"},
                          {"name", std::string(isa::info(s.opcode).mnemonic)},
                          {"cat", track.name},
                          {"pid", track.core},
                          {"tid", s.track},
                          {"ts", double(s.start_ps) * 1e-6},
                          {"dur", double(s.duration_ps) * 1e-6},
                          {"args", {{"instruction", s.instruction}, {"iteration", s.iteration}}}});
    }
    return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

void TraceRecorder::write(std::ostream& out) const { out << to_json().dump() << "\n"; }

}  // namespace nsim::sim::core
