#include "library/trace_file.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "library/gzip_stream.h"
#include "library/library_error.h"

namespace nsim::library {

TraceFile::TraceFile(const TraceOptions& options, uint32_t executions) : path_(options.file) {
    if (options.file.empty()) {
        if (options.iteration || !options.window.empty()) throw Error("--trace-iteration and --trace-window need --trace FILE");
        return;
    }
    if (options.iteration > executions)
        throw Error(fmt::format("--trace-iteration {}: the run makes {} execution{} (--iterations)", options.iteration,
                                    executions, executions == 1 ? "" : "s"));
    traced_ = options.iteration ? options.iteration - 1 : executions - 1;
    sim::core::TraceWindow window;
    try {
        if (!options.window.empty()) window = sim::core::parse_trace_window(options.window);
    } catch (const std::invalid_argument& e) {
        throw Error(e.what());
    }
    const bool gzip = options.file.size() > 3 && options.file.compare(options.file.size() - 3, 3, ".gz") == 0;
    errno = 0;
    if (gzip) out_ = std::make_unique<GzipOutputStream>(options.file);
    else out_ = std::make_unique<std::ofstream>(options.file);
    if (!*out_) throw cannot_write("trace file", options.file);
    writer_ = std::make_unique<sim::core::TraceWriter>(*out_, window);
}

TraceFile::~TraceFile() = default;

sim::core::TraceWriter* TraceFile::for_execution(uint32_t index) const {
    return writer_ && index == traced_ ? writer_.get() : nullptr;
}

void TraceFile::finish() {
    if (!writer_) return;
    errno = 0;
    writer_->finish();
    if (auto* gzip = dynamic_cast<GzipOutputStream*>(out_.get())) gzip->close();
    else static_cast<std::ofstream&>(*out_).close();
    if (!*out_) throw cannot_write("trace file", path_);
}

}  // namespace nsim::library
