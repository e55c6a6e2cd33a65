#include "neuron-sim/train_command.h"

#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/tool_main.h"
#include "core/run_report.h"
#include "isa/container_io.h"
#include "library/instance.h"
#include "library/model_vocabulary.h"
#include "library/program_preparation.h"
#include "library/training_checkpoint.h"
#include "library/training_report.h"
#include "library/training_run.h"
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

int run_train(const MachineSelection& machine, const TrainOptions& o) {
    const config::HostSpec spec = machine.resolve();
    const isa::Container program = library::read_program(o.program);
    const library::TrainingShape shape = library::training_shape(program, o.program);
    library::check_runnable(program, spec);
    if (o.functional && !library::has_weights(program))
        throw UserError("--functional needs a training program built with weights (this one was built --timing-only)");
    // The data is read and checked before the model loads.
    library::TrainingData data;
    if (o.functional) {
        const kernels::BertTokenizer tokenizer(library::model_vocabulary(program, o.vocab));
        data = library::training_data(o.data.empty() ? library::default_training_data_path() : o.data, tokenizer, shape);
    } else if (!o.data.empty() || !o.save.empty()) {
        throw UserError(std::string(o.save.empty() ? "--data" : "--save") + " needs --functional (a timing run computes no values)");
    }
    if (std::error_code ec; !o.save.empty() && std::filesystem::exists(o.save, ec) && !std::filesystem::is_directory(o.save, ec))
        throw UserError("--save " + o.save + ": exists and is not a directory");
    library::Instance instance(spec);
    library::Session session(instance, program, o.functional);
    library::TrainingSchedule schedule;
    schedule.lr = o.lr;
    schedule.warmup_steps = o.warmup_steps;
    schedule.total_steps = o.steps;
    schedule.weight_decay = o.weight_decay;
    library::TrainingRun run(session, shape, schedule, std::move(data));
    std::vector<library::TrainingStepResult> steps;
    for (uint32_t s = 0; s < o.steps; ++s) {
        steps.push_back(run.step());
        if (!o.json) std::cout << log_line(steps.back(), o.functional) << std::endl;
    }
    const library::TrainingReport report = library::training_report(session, shape, steps, o.functional);
    if (!o.save.empty())
        library::save_training_checkpoint(session, o.save, library::model_vocabulary_path(program, o.vocab));
    if (o.json) std::cout << library::training_report_json(report).dump(2) << "\n";
    else std::cout << "\n" << library::training_report_text(report);
    return 0;
}

}  // namespace nsim::tools
