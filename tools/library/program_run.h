// A run of a loaded program: `iterations` executions through the runtime, the last one traced when
// asked, every output written as DIR/NAME.npy when asked, summarised as a RunReport
// (library/run_report.h). What `neuron-sim run` and the Python module's run() do.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "library/program_session.h"
#include "library/run_report.h"

namespace nsim::library {

struct RunRequest {
    uint32_t iterations = 1;
    std::ofstream* trace = nullptr;            // the last execution's Chrome trace; null: none
    std::string trace_path;                    // its name, for the message when writing fails
    std::filesystem::path output_dir;          // empty: outputs are not written
    std::function<void()> execution_finished;  // after each execution (a progress bar)
    // The run's host time is counted from here (a tool starts it before it opens the instance).
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

// The trace file opened for writing; Error when it cannot be.
std::ofstream open_trace_file(const std::string& path);

// Error (one line) when an execution fails or a file cannot be written; tensor_files::TensorFileError
// when an output cannot be written as .npy.
RunReport run(Session& session, const RunRequest& request);

}  // namespace nsim::library
