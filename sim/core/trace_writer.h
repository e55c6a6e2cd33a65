// Writes a Chrome trace (the JSON that Perfetto and chrome://tracing open) to a stream event by
// event: the engines' slices, the host's slices and the bandwidth counters of one execution go into
// one file without the whole trace ever being one JSON tree in memory (a BERT-large execution has
// hundreds of thousands of slices; as an nlohmann tree they took gigabytes, written out they are tens of
// megabytes). Events may come in any order (the format does not ask for one).
//
// Tracks are (process id, thread name) pairs declared on first use, so the runtime, the session and
// the engines each write to their own tracks of the same file: the engines use their program core as
// the process id, the host kHostProcess (sorted first). A window, in simulated time
// relative to an origin the runtime sets when the traced execution starts, keeps only the events that
// overlap it: a big model's trace can be cut to the part a browser can show.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace nsim::sim::core {

struct TraceTrack {
    uint32_t pid = 0, tid = 0;
};

// Microseconds relative to the origin (`--trace-window START:END`); end = infinity when open.
struct TraceWindow {
    double start_us = 0;
    double end_us = -1;  // < 0: no end
    bool bounded() const { return start_us > 0 || end_us >= 0; }
};

// "START:END" in microseconds (END empty: open); std::invalid_argument with a one-line reason.
TraceWindow parse_trace_window(const std::string& text);

class TraceWriter {
public:
    explicit TraceWriter(std::ostream& out, TraceWindow window = {});
    ~TraceWriter();  // finish()
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // Closes the JSON (once); the stream's state says whether it was written.
    void finish();

    // The window is measured from here (simulated picoseconds); until set, from 0.
    void set_origin(uint64_t ps) { origin_ps_ = ps; }
    uint64_t origin() const { return origin_ps_; }
    // Absolute picoseconds of the window's ends (end: UINT64_MAX when open).
    bool bounded() const { return window_.bounded(); }
    uint64_t window_start_ps() const;
    uint64_t window_end_ps() const;
    bool overlaps_window(uint64_t start_ps, uint64_t end_ps) const;

    // The track of thread `thread` in process `pid` (named `process`), declared with its names and
    // sort order (processes by id, the host's first; threads in order of first use) the first time it
    // is asked for. Thread ids are unique in the file.
    TraceTrack track(uint32_t pid, const std::string& process, const std::string& thread);
    static constexpr uint32_t kHostProcess = 1u << 20;

    // A complete ("X") slice, dropped when outside the window. `args_json` is a JSON object's text
    // (see JsonArgs) or empty.
    void slice(TraceTrack track, std::string_view name, std::string_view category, uint64_t start_ps,
               uint64_t duration_ps, std::string_view args_json = {});
    // A counter ("C") sample of process `track.pid`, `values_json` a JSON object of series -> value;
    // dropped when outside the window.
    void counter(TraceTrack track, std::string_view name, uint64_t at_ps, std::string_view values_json);

    uint64_t events() const { return events_; }

private:
    void begin_event();
    void metadata(const char* name, uint32_t pid, uint32_t tid, const std::string& key, const std::string& value_json);

    std::ostream& out_;
    TraceWindow window_;
    uint64_t origin_ps_ = 0;
    bool finished_ = false;
    uint64_t events_ = 0;
    std::map<uint32_t, std::string> processes_;
    std::map<std::pair<uint32_t, std::string>, uint32_t> threads_;
};

// Builds a JSON object's text field by field (values escaped), for slice and counter arguments.
class JsonArgs {
public:
    JsonArgs& text(std::string_view key, std::string_view value);
    JsonArgs& integer(std::string_view key, uint64_t value);
    JsonArgs& real(std::string_view key, double value);
    std::string str() const { return text_.empty() ? "{}" : text_ + "}"; }

private:
    void key(std::string_view k);
    std::string text_;
};

// `text` as a JSON string literal (quotes included).
std::string json_quoted(std::string_view text);

}  // namespace nsim::sim::core
