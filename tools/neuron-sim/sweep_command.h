// `neuron-sim sweep SWEEP.yaml`: every point of a grid (sweep_grid.h) built and run timing-only,
// one CSV row each (sweep_table.h) and a plot of throughput against batch (sweep_plot.h). Started
// under mpirun, the points are spread over the ranks, round robin by their order in the grid, and
// rank 0 writes the rows in grid order: the same CSV as without MPI (but for host_s). Rank 0 appends
// each row as it arrives, so an interrupted sweep run again carries on where it stopped.
#pragma once

#include <string>

#include "neuron-sim/machine_selection.h"

namespace nsim::tools {

struct SweepOptions {
    std::string sweep_file;
    std::string csv;        // empty: the sweep file's name with .csv, in the current directory
    std::string plot;       // empty: the CSV's path with .png
    bool no_plot = false;
};

int run_sweep(const MachineSelection& machine, const SweepOptions& options);

}  // namespace nsim::tools
