// The picture of a sweep: throughput against batch (the micro-batch for training), one line per
// series - the points that differ only in batch - drawn by gnuplot (Debian gnuplot-nox, pngcairo)
// from a script written next to the PNG (PLOT.gp: the data inline, so it can be edited and run again
// with `gnuplot PLOT.gp`). Points with an error are left out.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "neuron-sim/sweep_table.h"

namespace nsim::tools {

// The gnuplot script that draws `rows` into `png`.
std::string sweep_plot_script(const std::vector<SweepRow>& rows, const std::filesystem::path& png, const std::string& title);

// Writes the script and runs gnuplot on it. `line` tells the user where the plot is, or why there is
// none (no point to plot, gnuplot not installed, gnuplot failed). UserError when the script cannot be
// written.
struct PlotOutcome {
    bool drawn = false;
    std::string line;
};
PlotOutcome plot_sweep(const std::vector<SweepRow>& rows, const std::filesystem::path& png, const std::string& title);

}  // namespace nsim::tools
