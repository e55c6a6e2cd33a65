#include "core/trace_writer.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace nsim::sim::core {
namespace {

// Chrome trace times are microseconds; six decimals keep the engines' picoseconds.
std::string us_text(uint64_t ps) { return fmt::format("{}.{:06}", ps / 1000000, ps % 1000000); }

uint64_t to_ps(double us) { return us <= 0 ? 0 : uint64_t(std::llround(us * 1e6)); }

}  // namespace

TraceWindow parse_trace_window(const std::string& text) {
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument("--trace-window '" + text + "': " + why + " (START:END in microseconds from the traced "
                                     "execution's start, END may be left out)");
    };
    const size_t colon = text.find(':');
    if (colon == std::string::npos) throw bad("no ':'");
    const auto number = [&](const std::string& part) {
        size_t used = 0;
        double value = 0;
        try {
            value = std::stod(part, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != part.size() || part.empty() || !std::isfinite(value) || value < 0)
            throw bad("'" + part + "' is not a number of microseconds >= 0");
        return value;
    };
    TraceWindow window;
    window.start_us = number(text.substr(0, colon));
    const std::string end = text.substr(colon + 1);
    if (!end.empty()) {
        window.end_us = number(end);
        if (window.end_us <= window.start_us) throw bad("END is not after START");
    }
    return window;
}

std::string json_quoted(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", unsigned(c));
                else out += c;
        }
    }
    return out + "\"";
}

void JsonArgs::key(std::string_view k) {
    text_ += text_.empty() ? "{" : ",";
    text_ += json_quoted(k) + ":";
}

JsonArgs& JsonArgs::text(std::string_view k, std::string_view value) {
    key(k);
    text_ += json_quoted(value);
    return *this;
}

JsonArgs& JsonArgs::integer(std::string_view k, uint64_t value) {
    key(k);
    text_ += std::to_string(value);
    return *this;
}

JsonArgs& JsonArgs::real(std::string_view k, double value) {
    key(k);
    text_ += std::isfinite(value) ? fmt::format("{}", value) : "null";
    return *this;
}

TraceWriter::TraceWriter(std::ostream& out, TraceWindow window) : out_(out), window_(window) {
    out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
}

TraceWriter::~TraceWriter() { finish(); }

void TraceWriter::finish() {
    if (finished_) return;
    finished_ = true;
    out_ << "\n]}\n";
    out_.flush();
}

uint64_t TraceWriter::window_start_ps() const { return origin_ps_ + to_ps(window_.start_us); }

uint64_t TraceWriter::window_end_ps() const {
    return window_.end_us < 0 ? UINT64_MAX : origin_ps_ + to_ps(window_.end_us);
}

bool TraceWriter::overlaps_window(uint64_t start_ps, uint64_t end_ps) const {
    if (!window_.bounded()) return true;
    return end_ps >= window_start_ps() && start_ps <= window_end_ps();
}

void TraceWriter::begin_event() {
    out_ << (events_++ ? ",\n" : "\n");
}

void TraceWriter::metadata(const char* name, uint32_t pid, uint32_t tid, const std::string& key,
                           const std::string& value_json) {
    begin_event();
    out_ << fmt::format(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{{"{}":{}}}}})", name, pid, tid, key,
                        value_json);
}

TraceTrack TraceWriter::track(uint32_t pid, const std::string& process, const std::string& thread) {
    if (processes_.emplace(pid, process).second) {
        metadata("process_name", pid, 0, "name", json_quoted(process));
        metadata("process_sort_index", pid, 0, "sort_index", pid == kHostProcess ? "-1" : std::to_string(pid));
    }
    auto t = threads_.find({pid, thread});
    if (t == threads_.end()) {
        const uint32_t tid = uint32_t(threads_.size());
        t = threads_.emplace(std::make_pair(pid, thread), tid).first;
        metadata("thread_name", pid, tid, "name", json_quoted(thread));
        metadata("thread_sort_index", pid, tid, "sort_index", std::to_string(tid));
    }
    return {pid, t->second};
}

void TraceWriter::slice(TraceTrack track, std::string_view name, std::string_view category, uint64_t start_ps,
                        uint64_t duration_ps, std::string_view args_json) {
    if (!overlaps_window(start_ps, start_ps + duration_ps)) return;
    begin_event();
    out_ << fmt::format(R"({{"ph":"X","name":{},"cat":{},"pid":{},"tid":{},"ts":{},"dur":{})", json_quoted(name),
                        json_quoted(category), track.pid, track.tid, us_text(start_ps), us_text(duration_ps));
    if (!args_json.empty()) out_ << ",\"args\":" << args_json;
    out_ << "}";
}

void TraceWriter::counter(TraceTrack track, std::string_view name, uint64_t at_ps, std::string_view values_json) {
    if (!overlaps_window(at_ps, at_ps)) return;
    begin_event();
    out_ << fmt::format(R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{}}})", json_quoted(name), track.pid,
                        us_text(at_ps), values_json);
}

}  // namespace nsim::sim::core
