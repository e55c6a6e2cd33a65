// `neuron-sim run PROG.bin`: load a program onto the simulated machine, execute it on the engines
// and report cycles, time, per-engine busy %, DMA / device-memory / PCIe traffic; optionally a
// Chrome trace. Loading (placement + tensors) and executing are separate steps, so that the runtime
// can later do the loading through the driver.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/container.h"
#include "neuron-sim/machine_selection.h"
#include "neuron-sim/trace_file.h"

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
    // Tensors in and out (--functional): NAME=FILE.npy per input or weight, and where outputs go as NAME.npy.
    std::vector<std::string> inputs;
    std::string output_dir;   // empty: outputs are not written
    // Sentence-pair classification (built models, --functional): see pairs_command.h.
    std::string pairs;        // MRPC-format file; empty: a plain run
    std::string predictions;  // one line per pair; empty: none
    std::string vocab;        // empty: the checkpoint's vocab.txt recorded by neuron-build, else shared/data's
};

int run_program(const MachineSelection& machine, const RunOptions& options);

// The program in `bytes`, read from `path`; a UserError naming the file when it is not one.
isa::Container read_program(const std::vector<uint8_t>& bytes, const std::string& path);

// The --trace, --trace-iteration and --trace-window options.
TraceOptions trace_options(const RunOptions& options);

}  // namespace nsim::tools
