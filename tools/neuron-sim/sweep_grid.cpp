#include "neuron-sim/sweep_grid.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "bert/bert_config.h"
#include "common/tool_main.h"
#include "neuron-build/bert_command.h"
#include "neuron-build/bert_train_command.h"

namespace nsim::tools {
namespace {

namespace fs = std::filesystem;

// The keys a grid varies, in the order the combinations nest (the last varies fastest).
constexpr const char* kGridKeys[] = {"task", "instance", "model", "dtype", "cores", "seq", "grad_accum", "batch"};
// The keys only the top level has.
constexpr const char* kSweepKeys[] = {"grids", "iterations", "steps", "title"};

using GridValues = std::map<std::string, std::vector<std::string>>;

std::string known_keys() {
    std::vector<std::string> keys(std::begin(kGridKeys), std::end(kGridKeys));
    keys.insert(keys.end(), std::begin(kSweepKeys), std::end(kSweepKeys));
    return fmt::format("{}", fmt::join(keys, ", "));
}

bool is_grid_key(const std::string& key) {
    return std::find(std::begin(kGridKeys), std::end(kGridKeys), key) != std::end(kGridKeys);
}

// "FILE:LINE: message", the line of `node` (1-based).
UserError error_at(const std::string& file, const YAML::Node& node, const std::string& message) {
    return UserError(fmt::format("{}:{}: {}", file, node.Mark().line + 1, message));
}

std::vector<std::string> grid_values(const std::string& file, const std::string& key, const YAML::Node& node) {
    std::vector<std::string> values;
    if (node.IsScalar()) values.push_back(node.Scalar());
    if (node.IsSequence())
        for (const YAML::Node& item : node) {
            if (!item.IsScalar()) throw error_at(file, item, "'" + key + "' lists values, not lists or maps");
            values.push_back(item.Scalar());
        }
    if (!node.IsScalar() && !node.IsSequence())
        throw error_at(file, node, "'" + key + "' must be a value or a list of values");
    if (values.empty()) throw error_at(file, node, "'" + key + "' is an empty list: the grid would have no points");
    return values;
}

// A task or dtype neuron-build would refuse is an error of the file, said once with what it takes, not
// an error row for every point that has it.
void check_grid_values(const std::string& file, const std::string& key, const YAML::Node& node,
                       const std::vector<std::string>& values) {
    if (key != "task" && key != "dtype") return;
    std::vector<std::string> inference{"inference"}, training = kBertTrainTasks;
    if (key == "dtype") {
        inference = kBertDtypes;
        training = kBertTrainDtypes;
    }
    for (const std::string& value : values)
        if (std::find(inference.begin(), inference.end(), value) == inference.end() &&
            std::find(training.begin(), training.end(), value) == training.end())
            throw error_at(file, node,
                           key == "task" ? fmt::format("unknown task '{}' (known: {}, {})", value, fmt::join(inference, ", "),
                                                       fmt::join(training, ", "))
                                         : fmt::format("unknown dtype '{}' (known: {} for inference; {} for training)", value,
                                                       fmt::join(inference, ", "), fmt::join(training, ", ")));
}

// The grid keys of `map` over `defaults`; an unknown key (or a top-level one inside `grids`) is an error.
GridValues read_grid(const std::string& file, const YAML::Node& map, GridValues values, bool top_level) {
    for (const auto& entry : map) {
        const std::string key = entry.first.Scalar();
        if (is_grid_key(key)) {
            values[key] = grid_values(file, key, entry.second);
            check_grid_values(file, key, entry.second, values[key]);
            continue;
        }
        const bool sweep_key = std::find(std::begin(kSweepKeys), std::end(kSweepKeys), key) != std::end(kSweepKeys);
        if (!top_level || !sweep_key) {
            const std::string known = top_level ? known_keys() : fmt::format("{}", fmt::join(kGridKeys, ", "));
            throw error_at(file, entry.first, fmt::format("unknown key '{}' (known: {})", key, known));
        }
    }
    return values;
}

uint32_t positive_count(const std::string& file, const YAML::Node& node, const std::string& key) {
    try {
        const long long value = node.as<long long>();
        if (value >= 1 && value <= 1000000) return uint32_t(value);
    } catch (const YAML::Exception&) {
    }
    throw error_at(file, node, fmt::format("'{}' must be a whole number from 1 to 1000000", key));
}

// A model that names a file is taken relative to the sweep file, as a user reads it.
std::string model_path(const std::string& model, const fs::path& sweep_dir) {
    if (kernels::bert_preset_config(model) || model.empty() || fs::path(model).is_absolute() || sweep_dir.empty())
        return model;
    return (sweep_dir / model).lexically_normal().string();
}

void add_points(const std::string& file, const GridValues& values, const YAML::Node& where,
                const std::vector<std::string>& instance_names, SweepGrid& grid) {
    for (const char* required : {"instance", "model", "batch"})
        if (!values.count(required)) throw error_at(file, where, fmt::format("the grid has no '{}'", required));
    for (const std::string& instance : values.at("instance"))
        if (std::find(instance_names.begin(), instance_names.end(), instance) == instance_names.end())
            throw error_at(file, where, fmt::format("unknown instance '{}' (known: {})", instance, fmt::join(instance_names, ", ")));
    const fs::path sweep_dir = fs::path(file).parent_path();
    // Every combination, odometer style: the last key turns fastest.
    std::vector<const std::vector<std::string>*> axes;
    std::vector<std::string> keys;
    for (const char* key : kGridKeys)
        if (values.count(key)) {
            axes.push_back(&values.at(key));
            keys.push_back(key);
        }
    std::vector<size_t> index(axes.size(), 0);
    while (true) {
        SweepPoint point;
        for (size_t a = 0; a < axes.size(); ++a) {
            const std::string& value = (*axes[a])[index[a]];
            const std::string& key = keys[a];
            if (key == "task") point.task = value;
            else if (key == "instance") point.instance = value;
            else if (key == "model") point.model = model_path(value, sweep_dir);
            else if (key == "dtype") point.dtype = value;
            else if (key == "cores") point.cores = value;
            else if (key == "seq") point.seq = value;
            else if (key == "grad_accum") point.grad_accum = value;
            else point.batch = value;
        }
        grid.points.push_back(point);
        size_t a = axes.size();
        while (a > 0 && ++index[a - 1] == axes[a - 1]->size()) index[--a] = 0;
        if (a == 0) break;
    }
}

}  // namespace

std::string SweepPoint::effective_dtype() const {
    if (!dtype.empty()) return dtype;
    return training() ? "bf16" : "mixed";
}

std::vector<std::string> SweepPoint::parameters() const {
    // Inference accumulates no gradients: its grad_accum stays empty, whatever the grid says.
    return {task, instance, model, effective_dtype(), cores, seq, training() ? grad_accum : std::string(), batch};
}

SweepGrid parse_sweep_grid(const std::string& yaml, const std::string& file, const std::vector<std::string>& instance_names) {
    YAML::Node root;
    try {
        root = YAML::Load(yaml);
    } catch (const YAML::ParserException& e) {
        throw UserError(fmt::format("{}:{}:{}: not YAML: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
    }
    if (!root.IsMap()) throw UserError(file + ": a sweep is a map of keys (instance, model, batch ... or grids)");
    SweepGrid grid;
    const GridValues defaults = read_grid(file, root, {}, true);
    if (const YAML::Node n = root["iterations"]) grid.iterations = positive_count(file, n, "iterations");
    if (const YAML::Node n = root["steps"]) grid.steps = positive_count(file, n, "steps");
    if (const YAML::Node n = root["title"]) {
        if (!n.IsScalar()) throw error_at(file, n, "'title' must be a text");
        grid.title = n.Scalar();
    }
    const YAML::Node grids = root["grids"];
    if (!grids) {
        add_points(file, defaults, root, instance_names, grid);
        return grid;
    }
    if (!grids.IsSequence() || grids.size() == 0) throw error_at(file, grids, "'grids' must be a list of grids (maps of keys)");
    for (const YAML::Node& g : grids) {
        if (!g.IsMap()) throw error_at(file, g, "each of 'grids' must be a map of keys (instance, model, batch ...)");
        add_points(file, read_grid(file, g, defaults, false), g, instance_names, grid);
    }
    return grid;
}

}  // namespace nsim::tools
