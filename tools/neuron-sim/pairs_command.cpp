#include "neuron-sim/pairs_command.h"

#include <fstream>
#include <iostream>
#include <memory>

#include "common/tool_main.h"
#include "library/instance.h"
#include "library/model_vocabulary.h"
#include "library/pair_classification.h"
#include "library/program_run.h"
#include "library/token_inputs.h"
#include "library/trace_file.h"
#include "neuron-sim/execution_progress.h"
#include "neuron-sim/model_run_command.h"
#include "neuron-sim/pairs_report.h"

namespace nsim::tools {
namespace {

std::vector<int> labels_of(const kernels::SentencePairFile& file) {
    std::vector<int> labels;
    for (const kernels::SentencePair& pair : file.pairs) labels.push_back(*pair.label);
    return labels;
}

std::vector<int> classes_of(const std::vector<kernels::Prediction>& predictions) {
    std::vector<int> classes;
    for (const kernels::Prediction& p : predictions) classes.push_back(p.label);
    return classes;
}

}  // namespace

int run_pairs(const MachineSelection& machine, const RunOptions& options, const isa::Container& program) {
    // Everything the user can get wrong is checked before the model loads.
    if (!library::has_weights(program)) throw UserError(kFunctionalNeedsWeights);
    const library::TokenInputs inputs(program, options.program);
    const kernels::BertTokenizer tokenizer(library::model_vocabulary(program, options.vocab));
    const kernels::SentencePairFile file = kernels::read_sentence_pairs(options.pairs);
    if (file.pairs.empty()) throw UserError(options.pairs + ": no sentence pairs after the header");
    std::ofstream predictions_out;
    if (!options.predictions.empty()) {
        predictions_out.open(options.predictions, std::ios::trunc);
        if (!predictions_out) throw UserError(options.predictions + ": cannot create the predictions file");
    }

    const config::HostSpec spec = machine.resolve_host();
    library::Instance instance(spec);
    library::Session session(instance, program, true);
    std::unique_ptr<ExecutionProgress> progress;
    library::PairHooks hooks;
    // The trace shows the last execution unless --trace-iteration says which, as in plain `run --trace`.
    std::unique_ptr<library::TraceFile> trace;
    hooks.batches_ready = [&](size_t executions) {
        trace = std::make_unique<library::TraceFile>(trace_options(options), uint32_t(executions));
        progress = std::make_unique<ExecutionProgress>(session, "classifying", executions);
    };
    hooks.execution_finished = [&] { progress->execution_finished(); };
    hooks.trace_for_execution = [&](size_t execution) { return trace->for_execution(uint32_t(execution)); };
    const library::PairClassification result = library::classify_pairs(session, inputs, tokenizer, file.pairs, hooks);
    progress.reset();
    if (trace) trace->finish();

    PairsOutcome outcome;
    outcome.pairs_file = options.pairs;
    outcome.model = program.metadata_value("model");
    outcome.instance = spec.instance.name;
    outcome.seq_len = library::metadata_u32(program, "seq_len", 0);
    outcome.copies = session.copies();
    outcome.batch = session.batch();
    outcome.executions = result.executions;
    outcome.device_s = result.device_s;
    outcome.end_to_end_s = result.end_to_end_s;
    if (predictions_out.is_open()) {
        kernels::write_predictions_tsv(predictions_out, result.predictions);
        predictions_out.flush();
        if (!predictions_out) throw UserError(options.predictions + ": write failed");
        outcome.predictions_file = options.predictions;
    }
    outcome.pairs = result.predictions.size();
    outcome.padding_sequences = result.padding_sequences;
    outcome.truncated = result.truncated;
    if (file.has_labels) outcome.metrics = kernels::binary_metrics(classes_of(result.predictions), labels_of(file));
    if (options.json)
        print_pairs_json(std::cout, outcome);
    else
        print_pairs_text(std::cout, outcome);
    return 0;
}

}  // namespace nsim::tools
