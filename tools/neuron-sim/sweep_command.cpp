#include "neuron-sim/sweep_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/host_configs.h"
#include "common/tool_main.h"
#include "host_state.h"
#include "isa/bounded_file.h"
#include "neuron-sim/sweep_grid.h"
#include "neuron-sim/sweep_plot.h"
#include "neuron-sim/sweep_point_run.h"
#include "neuron-sim/sweep_ranks.h"
#include "neuron-sim/sweep_table.h"

namespace nsim::tools {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxSweepFileBytes = uint64_t(1) << 20;

// What rank 0 knows before any point runs, and the ranks agree on.
struct SweepPlan {
    SweepGrid grid;
    std::vector<size_t> to_run;                // grid indices, each point once, in grid order
    std::map<std::string, SweepRow> done;      // rows of the CSV already there, by point key
    std::vector<SweepRow> outside_grid;        // rows of the CSV no point of this grid has: kept at the end
};

fs::path csv_path(const SweepOptions& o) {
    if (!o.csv.empty()) return o.csv;
    return fs::path(o.sweep_file).filename().replace_extension(".csv");
}

fs::path plot_path(const SweepOptions& o) {
    if (!o.plot.empty()) return o.plot;
    return csv_path(o).replace_extension(".png");
}

SweepGrid grid_of(const std::string& yaml, const SweepOptions& o, const MachineSelection& machine) {
    const config::ConfigSet configs = load_host_configs(driver::HostState::default_home(), "", machine.config_files);
    return parse_sweep_grid(yaml, o.sweep_file, configs.instance_names());
}

// Rank 0: the rows already in the CSV, and which points still have to run. The CSV is written again
// with just its whole rows (a line an interruption cut is dropped), which also shows it is writable.
void plan_from_csv(SweepPlan& plan, const fs::path& csv) {
    const std::vector<SweepRow> existing = read_sweep_csv(csv);
    std::set<std::string> grid_keys;
    for (const SweepPoint& p : plan.grid.points) grid_keys.insert(point_key(p));
    for (const SweepRow& row : existing) {
        if (grid_keys.count(row_key(row))) plan.done.emplace(row_key(row), row);
        else plan.outside_grid.push_back(row);
    }
    std::set<std::string> planned;
    for (size_t i = 0; i < plan.grid.points.size(); ++i) {
        const std::string key = point_key(plan.grid.points[i]);
        if (!plan.done.count(key) && planned.insert(key).second) plan.to_run.push_back(i);
    }
    write_sweep_csv(csv, existing);
}

std::string point_text(const SweepPoint& p) {
    return fmt::format("{} {} {} {} cores {} seq {}{} batch {}", p.task, p.instance, fs::path(p.model).stem().string(),
                       p.effective_dtype(), p.cores, p.seq, p.training() ? " accum " + p.grad_accum : "", p.batch);
}

std::string outcome_text(const SweepRow& row) {
    const std::string& error = row[sweep_column("error")];
    if (!error.empty()) return "error: " + error;
    const bool training = row[sweep_column("task")] != "inference";
    return fmt::format("{} sequences/s, {} {} ms (host {} s)", row[sweep_column("throughput_per_s")],
                       training ? "step" : "latency", row[sweep_column(training ? "step_ms" : "latency_ms")],
                       row[sweep_column("host_s")]);
}

// Rank 0's record of the rows as they come in: appended to the CSV at once, announced on stdout.
class RowCollector {
public:
    RowCollector(const SweepPlan& plan, fs::path csv) : plan_(plan), csv_(std::move(csv)) {}

    void add(size_t run_index, SweepRow row) {
        append_sweep_row(csv_, row);
        const SweepPoint& point = plan_.grid.points[plan_.to_run.at(run_index)];
        std::cout << fmt::format("[{}/{}] {}: {}", ++finished_, plan_.to_run.size(), point_text(point), outcome_text(row))
                  << std::endl;
        rows_[point_key(point)] = std::move(row);
    }
    size_t finished() const { return finished_; }

    // Every point's row in grid order (each point once), then the CSV's rows from outside the grid.
    std::vector<SweepRow> grid_rows() const {
        std::vector<SweepRow> rows;
        std::set<std::string> written;
        for (const SweepPoint& p : plan_.grid.points) {
            const std::string key = point_key(p);
            if (!written.insert(key).second) continue;
            if (const auto it = rows_.find(key); it != rows_.end()) rows.push_back(it->second);
            else if (const auto old = plan_.done.find(key); old != plan_.done.end()) rows.push_back(old->second);
        }
        return rows;
    }

private:
    const SweepPlan& plan_;
    fs::path csv_;
    std::map<std::string, SweepRow> rows_;
    size_t finished_ = 0;
};

SweepRow measure_row(const SweepPoint& point, const SweepSettings& settings) {
    const auto start = std::chrono::steady_clock::now();
    const SweepMeasurement m = measure_sweep_point(point, settings);
    const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return sweep_row(point, m, settings, host_s);
}

}  // namespace

int run_sweep(const MachineSelection& machine, const SweepOptions& o) {
    const std::unique_ptr<SweepRanks> ranks = open_sweep_ranks();
    const bool first = ranks->rank() == 0;
    const fs::path csv = csv_path(o);

    // Rank 0 reads and checks the sweep file and the CSV; the other ranks get the file and the points
    // to run from it (they need neither file of their own: on several machines only rank 0's has them).
    // One broadcast of both (none when rank 0 failed), so that every rank waits in the same collectives.
    SweepPlan plan;
    std::optional<std::string> shared;
    if (first) {
        try {
            const std::string yaml = isa::read_bounded_text(o.sweep_file, kMaxSweepFileBytes, "sweep file");
            plan.grid = grid_of(yaml, o, machine);
            plan_from_csv(plan, csv);
            shared = fmt::format("{}\n{}", fmt::join(plan.to_run, " "), yaml);   // the points to run, then the file
        } catch (const std::exception& e) {
            if (ranks->size() == 1) throw;
            // mpirun stops the job at the first rank that exits non-zero: the line is out before any can.
            print_error_line("neuron-sim", e.what());
            ranks->share_from_first(std::nullopt);
            return kExitUserError;
        } catch (...) {
            ranks->share_from_first(std::nullopt);   // the other ranks must not wait for a plan
            throw;
        }
    }
    shared = ranks->share_from_first(shared);
    if (!shared) return kExitUserError;   // rank 0 has said why
    if (!first) {
        const size_t end_of_points = shared->find('\n');
        std::istringstream points(shared->substr(0, end_of_points));
        for (size_t index; points >> index;) plan.to_run.push_back(index);
        plan.grid = grid_of(shared->substr(end_of_points + 1), o, machine);
    }

    SweepSettings settings;
    settings.iterations = plan.grid.iterations;
    settings.steps = plan.grid.steps;
    settings.config_files = machine.config_files;
    if (first)
        std::cout << fmt::format("sweep {}: {} points, {} already in {}, {} to run on {} rank(s)", o.sweep_file,
                                 plan.grid.points.size(), plan.done.size(), csv.string(), plan.to_run.size(), ranks->size())
                  << std::endl;

    RowCollector collector(plan, csv);
    auto collect_arrived = [&](bool wait) {
        while (auto arrived = ranks->receive_row(wait)) {
            collector.add(arrived->point, nlohmann::json::parse(arrived->text).get<SweepRow>());
            if (wait) return;
        }
    };
    for (size_t k = size_t(ranks->rank()); k < plan.to_run.size(); k += size_t(ranks->size())) {
        SweepRow row = measure_row(plan.grid.points[plan.to_run[k]], settings);
        if (!first) {
            ranks->send_row({uint32_t(k), nlohmann::json(row).dump()});
            continue;
        }
        collector.add(k, std::move(row));
        collect_arrived(false);
    }
    if (!first) return 0;
    while (collector.finished() < plan.to_run.size()) collect_arrived(true);

    std::vector<SweepRow> rows = collector.grid_rows();
    const size_t errors = size_t(std::count_if(rows.begin(), rows.end(), [](const SweepRow& r) { return !r[sweep_column("error")].empty(); }));
    std::vector<SweepRow> file_rows = rows;
    file_rows.insert(file_rows.end(), plan.outside_grid.begin(), plan.outside_grid.end());
    write_sweep_csv(csv, file_rows);
    std::cout << fmt::format("wrote {}: {} rows, {} with an error", csv.string(), file_rows.size(), errors) << std::endl;
    if (!o.no_plot) {
        const std::string title = plan.grid.title.empty() ? "throughput against batch: " + fs::path(o.sweep_file).filename().string()
                                                          : plan.grid.title;
        const PlotOutcome plot = plot_sweep(rows, plot_path(o), title);
        (plot.drawn ? std::cout : std::cerr) << (plot.drawn ? "" : "neuron-sim sweep: ") << plot.line << std::endl;
    }
    // A script running the sweep learns from the exit code that the CSV is not all measurements.
    if (errors == 0) return 0;
    std::cerr << fmt::format("neuron-sim sweep: {} of {} points failed (their rows in {} say why)", errors, rows.size(),
                             csv.string())
              << std::endl;
    return kExitUserError;
}

}  // namespace nsim::tools
