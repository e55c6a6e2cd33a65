#include "neuron-sim/sweep_table.h"

#include <csv.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/tool_main.h"
#include "isa/bounded_file.h"

namespace nsim::tools {
namespace {

namespace fs = std::filesystem;

constexpr size_t kParameterColumns = 8;   // SweepPoint::parameters()
constexpr uint64_t kMaxSweepCsvBytes = uint64_t(1) << 30;

std::vector<std::string> make_columns() {
    std::vector<std::string> c = {"task", "instance", "model", "dtype", "cores", "seq", "grad_accum", "batch",
                                  "latency_ms", "step_ms", "throughput_per_s", "mfu_pct"};
    for (const SweepEngine& e : kSweepEngines) c.push_back(e.column);
    for (const char* name : {"error", "build_command", "run_command", "host_s"}) c.push_back(name);
    return c;
}

std::string number(const std::optional<double>& value, const char* format) {
    return value ? fmt::format(fmt::runtime(format), *value) : std::string();
}

std::string joined_key(const std::vector<std::string>& parameters) {
    std::string key;
    for (const std::string& p : parameters) key += p + '\x1f';
    return key;
}

// libcsv hands over fields and row ends through these.
struct CsvRows {
    std::vector<SweepRow> rows;
    SweepRow current;
};
void on_field(void* text, size_t length, void* data) {
    static_cast<CsvRows*>(data)->current.emplace_back(static_cast<const char*>(text), length);
}
void on_row_end(int, void* data) {
    auto* rows = static_cast<CsvRows*>(data);
    rows->rows.push_back(std::move(rows->current));
    rows->current.clear();
}

}  // namespace

const std::vector<std::string>& sweep_columns() {
    static const std::vector<std::string> columns = make_columns();
    return columns;
}

size_t sweep_column(const std::string& name) {
    const auto& c = sweep_columns();
    for (size_t i = 0; i < c.size(); ++i)
        if (c[i] == name) return i;
    throw std::out_of_range("no sweep column " + name);
}

SweepRow sweep_row(const SweepPoint& point, const SweepMeasurement& m, const SweepSettings& settings, double host_s) {
    SweepRow row = point.parameters();
    row.push_back(number(m.latency_ms, "{:.4f}"));
    row.push_back(number(m.step_ms, "{:.4f}"));
    row.push_back(number(m.throughput_per_s, "{:.2f}"));
    row.push_back(number(m.mfu_pct, "{:.2f}"));
    for (size_t e = 0; e < kSweepEngines.size(); ++e)
        row.push_back(e < m.engine_busy_pct.size() ? fmt::format("{:.2f}", m.engine_busy_pct[e]) : std::string());
    row.push_back(m.error);
    row.push_back(sweep_build_command(point, settings));
    row.push_back(sweep_run_command(point, settings));
    row.push_back(fmt::format("{:.2f}", host_s));
    return row;
}

std::string csv_line(const SweepRow& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
        const std::string& f = row[i];
        const bool quote = f.find_first_of(",\"\r\n") != std::string::npos ||
                           (!f.empty() && (std::isspace(static_cast<unsigned char>(f.front())) ||
                                           std::isspace(static_cast<unsigned char>(f.back()))));
        if (i) line += ',';
        if (!quote) {
            line += f;
            continue;
        }
        std::string quoted(2 * f.size() + 2, '\0');
        quoted.resize(csv_write(quoted.data(), quoted.size(), f.data(), f.size()));
        line += quoted;
    }
    return line + "\n";
}

std::string row_key(const SweepRow& row) {
    return joined_key(std::vector<std::string>(row.begin(), row.begin() + std::min(row.size(), kParameterColumns)));
}

std::string point_key(const SweepPoint& point) { return joined_key(point.parameters()); }

std::vector<SweepRow> read_sweep_csv(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    std::string bytes;
    try {
        bytes = isa::read_bounded_text(path, kMaxSweepCsvBytes, "sweep CSV");
    } catch (const isa::FileError& e) {
        throw UserError(e.what());
    }
    csv_parser parser;
    csv_init(&parser, 0);
    CsvRows rows;
    csv_parse(&parser, bytes.data(), bytes.size(), on_field, on_row_end, &rows);
    csv_fini(&parser, on_field, on_row_end, &rows);
    csv_free(&parser);
    if (rows.rows.empty() || rows.rows.front() != sweep_columns())
        throw UserError(fmt::format("{}: not a sweep CSV of this neuron-sim (its first line is not the sweep's header "
                                    "'task,instance,...'); give another -o or remove it", path.string()));
    std::vector<SweepRow> result;
    for (size_t r = 1; r < rows.rows.size(); ++r)
        if (rows.rows[r].size() == sweep_columns().size()) result.push_back(std::move(rows.rows[r]));
    return result;
}

void append_sweep_row(const fs::path& path, const SweepRow& row) {
    std::error_code ec;
    const bool fresh = !fs::exists(path, ec) || fs::file_size(path, ec) == 0;
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::app);
    if (fresh) out << csv_line(sweep_columns());
    out << csv_line(row);
    out.close();
    if (!out) throw UserError(fmt::format("cannot write the sweep CSV {}: {}", path.string(), std::strerror(errno)));
}

void write_sweep_csv(const fs::path& path, const std::vector<SweepRow>& rows) {
    const fs::path temporary = path.string() + ".partial";
    {
        errno = 0;
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << csv_line(sweep_columns());
        for (const SweepRow& row : rows) out << csv_line(row);
        out.close();
        if (!out) throw UserError(fmt::format("cannot write the sweep CSV {}: {}", path.string(), std::strerror(errno)));
    }
    std::error_code ec;
    fs::rename(temporary, path, ec);
    if (ec) throw UserError(fmt::format("cannot write the sweep CSV {}: {}", path.string(), ec.message()));
}

}  // namespace nsim::tools
