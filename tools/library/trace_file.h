// The --trace file of `neuron-sim run`: which execution it traces (--trace-iteration, default the
// last), the window it keeps (--trace-window), and the streaming writer every traced slice goes
// through (sim/core/trace_writer.h); a FILE ending in .gz is written gzip-compressed. Bad values are
// one-line library Errors, said before anything runs.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "core/trace_writer.h"

namespace nsim::library {

struct TraceOptions {
    std::string file;        // empty: no trace
    uint32_t iteration = 0;  // 1-based execution to trace; 0: the last
    std::string window;      // START:END (us from the traced execution's start); empty: all of it
};

class TraceFile {
public:
    // `executions`: how many the run makes. Not open when no file was asked for.
    TraceFile(const TraceOptions& options, uint32_t executions);
    ~TraceFile();

    bool open() const { return writer_ != nullptr; }
    // The writer when execution `index` (0-based) is the traced one, else null.
    sim::core::TraceWriter* for_execution(uint32_t index) const;
    // Closes the JSON; UserError when the file could not be written.
    void finish();

private:
    std::string path_;
    uint32_t traced_ = 0;  // 0-based
    std::unique_ptr<std::ostream> out_;
    std::unique_ptr<sim::core::TraceWriter> writer_;
};

}  // namespace nsim::library
