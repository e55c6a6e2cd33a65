#include "neuron-sim/sweep_plot.h"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "common/tool_main.h"

extern char** environ;

namespace nsim::tools {
namespace {

namespace fs = std::filesystem;

struct Series {
    SweepRow parameters;                         // the row's parameters but batch
    std::vector<std::pair<double, double>> xy;   // batch, throughput
};

// The rows that measured a throughput, grouped into series in the order each first appears.
std::vector<Series> plotted_series(const std::vector<SweepRow>& rows) {
    const size_t batch = sweep_column("batch"), throughput = sweep_column("throughput_per_s"), error = sweep_column("error");
    std::vector<Series> series;
    for (const SweepRow& row : rows) {
        if (!row[error].empty() || row[throughput].empty()) continue;
        SweepRow parameters(row.begin(), row.begin() + long(batch));
        auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.parameters == parameters; });
        if (it == series.end()) it = series.insert(series.end(), Series{parameters, {}});
        it->xy.emplace_back(std::stod(row[batch]), std::stod(row[throughput]));
    }
    for (Series& s : series) std::sort(s.xy.begin(), s.xy.end());
    return series;
}

// What a parameter says in a legend.
std::string parameter_label(const std::string& column, const std::string& value) {
    if (column == "model") return fs::path(value).stem().string();
    if (column == "cores") return value + (value == "1" ? " core" : " cores");
    if (column == "seq") return "seq " + value;
    if (column == "grad_accum") return "accum " + value;
    return value;
}

// A series' legend: the parameters that tell it from the others (all of them when it is alone).
std::string series_label(const Series& s, const std::vector<Series>& all) {
    std::vector<std::string> parts;
    for (size_t c = 0; c < s.parameters.size(); ++c) {
        const std::string& column = sweep_columns()[c];
        const bool varies = std::any_of(all.begin(), all.end(), [&](const Series& o) { return o.parameters[c] != s.parameters[c]; });
        if ((varies || all.size() == 1) && !s.parameters[c].empty()) parts.push_back(parameter_label(column, s.parameters[c]));
    }
    return fmt::format("{}", fmt::join(parts, " "));
}

// A gnuplot string literal (single quotes: no escapes but '' for a quote).
std::string gnuplot_text(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return quoted + "'";
}

}  // namespace

std::string sweep_plot_script(const std::vector<SweepRow>& rows, const fs::path& png, const std::string& title) {
    const std::vector<Series> series = plotted_series(rows);
    double low = 0, high = 0;
    for (const Series& s : series)
        for (const auto& [x, y] : s.xy) {
            low = low == 0 ? y : std::min(low, y);
            high = std::max(high, y);
        }
    std::string script = "# Throughput against batch, one line per series: made by neuron-sim sweep (run: gnuplot THIS_FILE)\n";
    script += "set terminal pngcairo size 960,600 noenhanced\n";
    script += "set output " + gnuplot_text(png.string()) + "\n";
    script += "set title " + gnuplot_text(title) + "\n";
    script += "set xlabel 'batch (training: micro-batch)'\nset ylabel 'throughput (sequences/s)'\n";
    script += "set logscale x 2\nset grid\nset key below\n";
    // Series far apart (a tiny model's inference beside BERT-base training) need a log scale to be read.
    if (low > 0 && high / low > 50) script += "set logscale y 10\n";
    std::string plot;
    for (size_t i = 0; i < series.size(); ++i) {
        script += fmt::format("$series{} << EOD\n", i);
        for (const auto& [x, y] : series[i].xy) script += fmt::format("{} {}\n", x, y);
        script += "EOD\n";
        plot += fmt::format("{}$series{} using 1:2 with linespoints linewidth 2 pointtype 7 title {}", i ? ", \\\n     " : "plot ",
                            i, gnuplot_text(series_label(series[i], series)));
    }
    return script + plot + "\n";
}

PlotOutcome plot_sweep(const std::vector<SweepRow>& rows, const fs::path& png, const std::string& title) {
    if (plotted_series(rows).empty()) return {false, "no plot: no point measured a throughput"};
    fs::path script_path = png;
    script_path.replace_extension(".gp");
    {
        errno = 0;
        std::ofstream out(script_path, std::ios::trunc);
        out << sweep_plot_script(rows, png, title);
        out.close();
        if (!out) throw UserError(fmt::format("cannot write the plot's script {}: {}", script_path.string(), std::strerror(errno)));
    }
    const std::string script = script_path.string();
    char* argv[] = {const_cast<char*>("gnuplot"), const_cast<char*>(script.c_str()), nullptr};
    pid_t child = 0;
    if (const int error = posix_spawnp(&child, "gnuplot", nullptr, nullptr, argv, environ); error != 0)
        return {false, fmt::format("no plot: gnuplot {} (Debian: apt-get install gnuplot-nox); its script is {}",
                                   error == ENOENT ? "is not installed" : std::string("cannot start: ") + std::strerror(error), script)};
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return {false, fmt::format("no plot: gnuplot failed on {} (status {})", script, status)};
    return {true, "plot: " + png.string() + " (gnuplot script " + script + ")"};
}

}  // namespace nsim::tools
