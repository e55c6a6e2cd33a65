#include "neuron-sim/train_command.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "core/run_report.h"
#include "isa/container_io.h"
#include "library/cluster_report.h"
#include "library/cluster_training.h"
#include "library/instance.h"
#include "library/model_vocabulary.h"
#include "library/output_paths.h"
#include "library/program_preparation.h"
#include "library/training_checkpoint.h"
#include "library/training_report.h"
#include "library/training_run.h"
#include "neuron-sim/cluster_processes.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::tools {
namespace {

// The script's date: time.asctime()'s "Thu Nov 26 23:59:01 2026".
std::string now_text() {
    const std::time_t t = std::time(nullptr);
    char text[64];
    std::strftime(text, sizeof text, "%a %b %d %H:%M:%S %Y", std::localtime(&t));
    return text;
}

std::string log_line(const library::TrainingStepResult& r, bool functional) {
    return fmt::format("LOG {} - (0, {}) step_loss : {}  learning_rate : {:.6e}  throughput : {:.2f}", now_text(), r.step,
                       functional ? fmt::format("{:.6f}", r.loss) : std::string("n/a (timing only)"), r.learning_rate,
                       r.throughput);
}

}  // namespace

namespace {

// How many nodes: the program's, which --nodes must match when given. Error (one line) otherwise.
uint32_t node_count(const TrainOptions& o, const library::TrainingShape& shape, const config::HostSpec& spec) {
    if (o.nodes == 0 || o.nodes < -1) throw UserError(fmt::format("--nodes {}: training runs on at least one node", o.nodes));
    if (o.nodes > 0 && uint32_t(o.nodes) != shape.nodes)
        throw UserError(fmt::format("--nodes {}: {} was built for {} node(s); build it with neuron-build bert-train --nodes {}",
                                    o.nodes, o.program, shape.nodes, o.nodes));
    if (shape.nodes > 1 && spec.instance.efa.devices == 0)
        throw UserError(fmt::format("--nodes {}: {} has no EFA to join instances (give an instance that has, such as "
                                    "trn1.32xlarge)", shape.nodes, spec.instance.name));
    return shape.nodes;
}

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

int train_on_nodes(const MachineSelection& machine, const TrainOptions& o, library::NodeExchange& nodes) {
    const config::HostSpec spec = machine.resolve();
    const isa::Container program = library::read_program(o.program);
    const library::TrainingShape shape = library::training_shape(program, o.program);
    library::check_runnable(program, spec);
    nodes.spread(node_count(o, shape, spec));
    const bool reports = nodes.process() == 0;
    if (o.functional && !library::has_weights(program))
        throw UserError("--functional needs a training program built with weights (this one was built --timing-only)");
    if (!o.functional && (!o.data.empty() || !o.save.empty()))
        throw UserError(std::string(o.save.empty() ? "--data" : "--save") + " needs --functional (a timing run computes no values)");
    // Before the model loads and the steps run, not after them.
    if (!o.save.empty()) library::check_output_directory("--save", o.save);
    // The data is read and checked before the model loads.
    library::TrainingData data;
    if (o.functional) {
        const kernels::BertTokenizer tokenizer(library::model_vocabulary(program, o.vocab));
        data = library::training_data(o.data.empty() ? library::default_training_data_path() : o.data, tokenizer, shape);
    }
    library::Instance instance(spec, node_host(nodes.first_local_node()));
    library::Session session(instance, program, o.functional);
    library::TrainingSchedule schedule;
    schedule.lr = o.lr;
    schedule.warmup_steps = o.warmup_steps;
    schedule.total_steps = o.steps;
    schedule.weight_decay = o.weight_decay;
    std::vector<library::TrainingStepResult> steps;
    std::vector<library::ClusterStep> cluster_steps;
    const double cpu_start = cpu_seconds();
    const auto wall_start = std::chrono::steady_clock::now();
    if (shape.nodes == 1) {
        library::TrainingRun run(session, shape, schedule, std::move(data));
        for (uint32_t s = 0; s < o.steps; ++s) {
            steps.push_back(run.step());
            if (!o.json) std::cout << log_line(steps.back(), o.functional) << std::endl;
        }
    } else {
        library::ClusterTraining run(session, nodes, shape, schedule, data);
        for (uint32_t s = 0; s < o.steps; ++s) {
            cluster_steps.push_back(run.step());
            steps.push_back(cluster_steps.back().result);
            if (reports && !o.json) std::cout << log_line(steps.back(), o.functional) << std::endl;
        }
    }
    const double cpu_s = cpu_seconds() - cpu_start;
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const library::TrainingReport report = library::training_report(session, shape, steps, o.functional);
    if (!o.save.empty() && reports)
        library::save_training_checkpoint(session, o.save, library::model_vocabulary_path(program, o.vocab));
    nlohmann::json json = library::training_report_json(report);
    std::string text = "\n" + library::training_report_text(report);
    if (shape.nodes > 1) {
        const library::ClusterReport cluster =
            library::cluster_report(spec, shape, nodes.processes(), cluster_steps, library::values_of_every_process(nodes, cpu_s),
                                    library::values_of_every_process(nodes, wall_s));
        json["cluster"] = library::cluster_report_json(cluster);
        text += "\n" + library::cluster_report_text(cluster);
    }
    if (reports) std::cout << (o.json ? json.dump(2) + "\n" : text);
    nodes.barrier();
    return 0;
}

}  // namespace

int run_train(const MachineSelection& machine, const TrainOptions& o) {
    const std::unique_ptr<library::NodeExchange> nodes = library::open_node_exchange();
    return run_on_every_rank(*nodes, [&] { return train_on_nodes(machine, o, *nodes); });
}

}  // namespace nsim::tools
