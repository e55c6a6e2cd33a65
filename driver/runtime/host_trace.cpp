#include "host_trace.h"

#include "host_time.h"

namespace nsim::runtime {
namespace {

const char* track_name(HostTrack track) {
    switch (track) {
        case HostTrack::Application: return "application";
        case HostTrack::Runtime: return "runtime";
        case HostTrack::ToDevice: return "PCIe to device";
        case HostTrack::FromDevice: return "PCIe from device";
    }
    return "?";
}

}  // namespace

// SystemC counts in its time resolution, which the engines require to be one picosecond.
uint64_t HostTrace::now_ps() { return driver::host_time::now().value(); }

void HostTrace::slice_until_now(HostTrack track, std::string_view name, uint64_t start_ps, const sim::core::JsonArgs& args) const {
    slice(track, name, start_ps, now_ps(), args);
}

void HostTrace::slice(HostTrack track, std::string_view name, uint64_t start_ps, uint64_t end_ps,
                      const sim::core::JsonArgs& args) const {
    if (!writer_) return;
    const sim::core::TraceTrack t = writer_->track(sim::core::TraceWriter::kHostProcess, "host", track_name(track));
    writer_->slice(t, name, "host", start_ps, end_ps > start_ps ? end_ps - start_ps : 0, args.str());
}

}  // namespace nsim::runtime
