#include "core/trace_recorder.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "isa/opcode_table.h"
#include "isa/text_format.h"

namespace nsim::sim::core {
namespace {

const char* wait_name(WaitKind kind) { return kind == WaitKind::Semaphore ? "semaphore wait" : "wait for peers"; }

// The category wait slices share, so that a viewer (or a test) tells them from instructions.
constexpr const char* kWaitCategory = "wait";

}  // namespace

uint32_t TraceRecorder::add_track(uint32_t core, const std::string& core_label, const isa::InstructionStream& stream) {
    tracks_.push_back({core, core_label, isa::queue_name(stream.engine, stream.queue), &stream});
    return uint32_t(tracks_.size() - 1);
}

void TraceRecorder::record(uint32_t track, uint32_t instruction, uint32_t iteration, uint64_t start_ps,
                           uint64_t duration_ps, const SliceTraffic* traffic) {
    int32_t moved = -1;
    if (traffic && traffic->bytes) {
        moved = int32_t(traffic_.size());
        traffic_.push_back(*traffic);
    }
    slices_.push_back({start_ps, duration_ps, track, instruction, iteration, moved, false, WaitKind::Semaphore});
    ++instruction_slices_;
}

void TraceRecorder::record_wait(uint32_t track, WaitKind kind, uint32_t instruction, uint32_t iteration,
                                uint64_t start_ps, uint64_t end_ps) {
    if (end_ps <= start_ps) return;
    slices_.push_back({start_ps, end_ps - start_ps, track, instruction, iteration, -1, true, kind});
}

std::string TraceRecorder::slice_args(const Slice& s, const isa::InstructionPrinter* printer) const {
    const Track& track = tracks_[s.track];
    const isa::Instruction& inst = track.stream->instructions[s.instruction];
    JsonArgs args;
    args.integer("instruction", s.instruction).integer("iteration", s.iteration);
    if (s.wait) {
        if (s.wait_kind == WaitKind::Semaphore) {
            std::string semaphore = fmt::format("${}", inst.sync.wait_semaphore);
            if (program_)
                for (const isa::SemaphoreName& n : program_->semaphore_names)
                    if (n.index == inst.sync.wait_semaphore) semaphore = n.name;
            args.text("semaphore", semaphore).integer("value", inst.sync.wait_value);
        }
        args.text("waiting", std::string(isa::info(inst.opcode).mnemonic));
        return args.str();
    }
    if (printer) args.text("operands", printer->line(*track.stream, inst));
    if (s.traffic >= 0) {
        const SliceTraffic& t = traffic_[size_t(s.traffic)];
        args.integer("bytes", t.bytes);
        if (t.hbm_read_bytes) args.integer("hbm_read_bytes", t.hbm_read_bytes);
        if (t.hbm_write_bytes) args.integer("hbm_write_bytes", t.hbm_write_bytes);
    }
    return args.str();
}

void TraceRecorder::write_to(TraceWriter& writer) const {
    std::vector<TraceTrack> tracks;
    for (const Track& t : tracks_) tracks.push_back(writer.track(t.core, t.core_label, t.name));
    std::unique_ptr<isa::InstructionPrinter> printer;
    if (program_) printer = std::make_unique<isa::InstructionPrinter>(*program_);
    for (const Slice& s : slices_) {
        if (!writer.overlaps_window(s.start_ps, s.start_ps + s.duration_ps)) continue;
        const Track& track = tracks_[s.track];
        const std::string args = slice_args(s, printer.get());
        if (s.wait)
            writer.slice(tracks[s.track], wait_name(s.wait_kind), kWaitCategory, s.start_ps, s.duration_ps, args);
        else
            writer.slice(tracks[s.track], isa::info(track.stream->instructions[s.instruction].opcode).mnemonic, track.name,
                         s.start_ps, s.duration_ps, args);
    }
    write_counters(writer, tracks);
}

// Per core: bytes per sample interval of its transfers (spread evenly over each transfer's data
// time), as GB/s, one counter event where the value changes.
void TraceRecorder::write_counters(TraceWriter& writer, const std::vector<TraceTrack>& tracks) const {
    if (traffic_.empty()) return;
    uint64_t first = UINT64_MAX, last = 0;
    for (const Slice& s : slices_) {
        first = std::min(first, s.start_ps);
        last = std::max(last, s.start_ps + s.duration_ps);
    }
    if (writer.bounded()) {
        first = std::max(first, writer.window_start_ps());
        last = std::min(last, writer.window_end_ps());
    }
    if (last <= first) return;
    const uint64_t step = std::max<uint64_t>(1, (last - first + kCounterSamples - 1) / kCounterSamples);
    const size_t samples = size_t((last - first + step - 1) / step);
    struct Series {
        std::vector<double> dma, read, write;
    };
    std::vector<Series> cores;
    std::vector<TraceTrack> core_track;
    for (const Slice& s : slices_) {
        if (s.traffic < 0) continue;
        const uint32_t core = tracks_[s.track].core;
        if (core >= cores.size()) {
            cores.resize(core + 1);
            core_track.resize(core + 1);
        }
        Series& series = cores[core];
        if (series.dma.empty()) {
            series = {std::vector<double>(samples), std::vector<double>(samples), std::vector<double>(samples)};
            core_track[core] = tracks[s.track];
        }
        const SliceTraffic& t = traffic_[size_t(s.traffic)];
        const uint64_t end = s.start_ps + s.duration_ps;
        const uint64_t begin = std::min(std::max(t.data_start_ps, s.start_ps), end);
        const uint64_t from = std::max(begin, first), to = std::min(end, last);
        if (end == begin) {
            // No data time (a transfer ending at its start): all its bytes at that instant.
            if (begin < first || begin >= last) continue;
            const size_t i = size_t((begin - first) / step);
            series.dma[i] += double(t.bytes), series.read[i] += double(t.hbm_read_bytes), series.write[i] += double(t.hbm_write_bytes);
            continue;
        }
        if (to <= from) continue;
        const double span = double(end - begin);
        for (size_t i = size_t((from - first) / step); i < samples; ++i) {
            const uint64_t bin_start = first + i * step, bin_end = bin_start + step;
            if (bin_start >= to) break;
            const double share = double(std::min(bin_end, to) - std::max(bin_start, from)) / span;
            series.dma[i] += share * double(t.bytes);
            series.read[i] += share * double(t.hbm_read_bytes);
            series.write[i] += share * double(t.hbm_write_bytes);
        }
    }
    for (size_t c = 0; c < cores.size(); ++c) {
        const Series& series = cores[c];
        if (series.dma.empty()) continue;
        double dma = -1, read = -1, write = -1;
        for (size_t i = 0; i <= samples; ++i) {
            // A last sample of zero closes each counter at the end of the span; the last interval
            // may be shorter than a step.
            const uint64_t at = std::min(last, first + i * step);
            const double width_ps = double(std::min(last, at + step) - at);
            const double gb_per_s = i < samples && width_ps > 0 ? 1e3 / width_ps : 0;  // bytes per interval -> GB/s
            const double d = i < samples ? series.dma[i] * gb_per_s : 0;
            const double r = i < samples ? series.read[i] * gb_per_s : 0;
            const double w = i < samples ? series.write[i] * gb_per_s : 0;
            if (d != dma) writer.counter(core_track[c], "DMA GB/s", at, JsonArgs().real("dma", d).str());
            if (r != read || w != write)
                writer.counter(core_track[c], "HBM GB/s", at, JsonArgs().real("read", r).real("write", w).str());
            dma = d, read = r, write = w;
        }
    }
}

void TraceRecorder::write(std::ostream& out) const {
    TraceWriter writer(out);
    write_to(writer);
}

nlohmann::json TraceRecorder::to_json() const {
    std::ostringstream text;
    write(text);
    return nlohmann::json::parse(text.str());
}

}  // namespace nsim::sim::core
