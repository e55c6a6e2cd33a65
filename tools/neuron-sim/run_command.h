// `neuron-sim run PROG.bin`: the options of a run, and the command that checks them and hands the
// program to the library (tools/library): a plain run (model_run_command.h) or sentence pairs
// (pairs_command.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "neuron-sim/machine_selection.h"
#include "library/trace_file.h"

namespace nsim::tools {

struct RunOptions {
    std::string program;
    uint32_t iterations = 1;
    bool functional = false;
    std::string trace_file;   // empty: no trace
    uint32_t trace_iteration = 0;  // 1-based execution the trace shows; 0: the last
    std::string trace_window;      // START:END in us from the traced execution's start; empty: all of it
    std::string profile_file;      // the last execution's neuron-profile summary as JSON; empty: none
    bool profile = false;          // `neuron-sim profile`: print that summary instead of the report
    bool json = false;
    bool verbose = false;     // the engines' report lists every queue, not one line per core and engine kind
    bool check = false;       // race-check the program first and refuse to run it when anything is found
    std::string graph;        // the graph each execution runs (isa::Container::graphs); empty: the first
    // Tensors in and out (--functional): NAME=FILE.npy per input or weight, and where outputs go as NAME.npy.
    std::vector<std::string> inputs;
    std::string output_dir;   // empty: outputs are not written
    // Sentence-pair classification (built models, --functional): see pairs_command.h.
    std::string pairs;        // MRPC-format file; empty: a plain run
    std::string predictions;  // one line per pair; empty: none
    std::string vocab;        // empty: the checkpoint's vocab.txt recorded by neuron-build, else shared/data's
};

int run_program(const MachineSelection& machine, const RunOptions& options);

// The --trace, --trace-iteration and --trace-window options.
library::TraceOptions trace_options(const RunOptions& options);

}  // namespace nsim::tools
