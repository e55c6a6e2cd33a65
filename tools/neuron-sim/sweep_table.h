// The CSV a sweep writes: a header, then one row per point in grid order - the point's parameters,
// what was measured (empty where it does not apply or the point failed), the point's one-line error,
// the two commands that reproduce it, and the host seconds it took. Everything but the last column
// depends only on the grid and the simulator, so one sweep run under MPI and one run without write
// the same file up to host_s. A sweep interrupted part way resumes from its file: rows already
// present (error rows too) are kept and their points not run again.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "neuron-sim/sweep_grid.h"
#include "neuron-sim/sweep_point_run.h"

namespace nsim::tools {

using SweepRow = std::vector<std::string>;   // one field per column

// The header's column names, in order; the first eight are the point's parameters.
const std::vector<std::string>& sweep_columns();
size_t sweep_column(const std::string& name);   // its index; std::out_of_range when there is none

SweepRow sweep_row(const SweepPoint& point, const SweepMeasurement& measurement, const SweepSettings& settings,
                   double host_s);
// Fields quoted as RFC 4180 says (only where a comma, quote, line break or edge space needs it),
// with the line's end.
std::string csv_line(const SweepRow& row);

// What identifies a row's point: its parameters.
std::string row_key(const SweepRow& row);
std::string point_key(const SweepPoint& point);

// The rows of a sweep CSV written before, in file order (empty when `path` does not exist); a row
// with too few fields (a line an interruption cut short) is left out. UserError when the file is not
// a sweep CSV (its header differs) or cannot be read.
std::vector<SweepRow> read_sweep_csv(const std::filesystem::path& path);
// `row` at the end of `path` (the header first when the file is new or empty), as soon as the point is done.
void append_sweep_row(const std::filesystem::path& path, const SweepRow& row);
// The header and `rows`, replacing `path` at once (a temporary file renamed over it).
void write_sweep_csv(const std::filesystem::path& path, const std::vector<SweepRow>& rows);

}  // namespace nsim::tools
