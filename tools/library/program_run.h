// A run of a loaded program: `iterations` executions through the runtime, one of them traced when
// asked (library/trace_file.h), every output written as DIR/NAME.npy when asked, summarised as a RunReport
// (library/run_report.h). What `neuron-sim run` and the Python module's run() do.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "library/program_session.h"
#include "library/run_report.h"
#include "library/trace_file.h"

namespace nsim::library {

struct RunRequest {
    uint32_t iterations = 1;
    TraceFile* trace = nullptr;                // the Chrome trace of the execution it chose; null: none
    std::filesystem::path output_dir;          // empty: outputs are not written
    std::function<void()> execution_finished;  // after each execution (a progress bar)
    std::string graph;                         // the graph each execution runs; empty: the first (or only) one
    // The run's host time is counted from here (a tool starts it before it opens the instance).
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

// Error (one line) when an execution fails or a file cannot be written; tensor_files::TensorFileError
// when an output cannot be written as .npy.
RunReport run(Session& session, const RunRequest& request);

}  // namespace nsim::library
