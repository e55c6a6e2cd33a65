#include "neuron-sim/pairs_command.h"

#include <fstream>
#include <iostream>

#include "builder/program_builder.h"
#include "common/tool_main.h"
#include "device/bert_program.h"
#include "eval/pair_batches.h"
#include "eval/predictions_tsv.h"
#include "neuron-sim/model_run_command.h"
#include "neuron-sim/model_session.h"
#include "neuron-sim/model_vocabulary.h"
#include "neuron-sim/pairs_report.h"
#include "neuron-sim/execution_progress.h"
#include "neuron-sim/token_inputs.h"

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
    if (!has_weights(program)) throw UserError(kFunctionalNeedsWeights);
    const TokenInputs inputs(program, options.program);
    const kernels::BertTokenizer tokenizer(model_vocabulary(program, options.vocab));
    const kernels::SentencePairFile file = kernels::read_sentence_pairs(options.pairs);
    if (file.pairs.empty()) throw UserError(options.pairs + ": no sentence pairs after the header");
    std::ofstream predictions_out;
    if (!options.predictions.empty()) {
        predictions_out.open(options.predictions, std::ios::trunc);
        if (!predictions_out) throw UserError(options.predictions + ": cannot create the predictions file");
    }
    std::ofstream trace_out = open_trace_file(options);

    const config::HostSpec spec = machine.resolve_host();
    ModelSession session(spec, program, true);
    PairsOutcome outcome;
    outcome.pairs_file = options.pairs;
    outcome.model = program.metadata_value("model");
    outcome.instance = spec.instance.name;
    outcome.seq_len = metadata_u32(program, "seq_len", 0);
    outcome.copies = session.copies();
    outcome.batch = session.batch();
    const kernels::PairBatches batches =
        kernels::batch_sentence_pairs(tokenizer, file.pairs, outcome.seq_len, session.sequences_per_execution());
    const size_t classes = metadata_u32(program, "num_labels", 2);

    std::vector<float> logits;
    {
        ExecutionProgress progress(session, "classifying", batches.batches.size());
        for (const kernels::PairBatch& batch : batches.batches) {
            inputs.write(batch.tokens, session);
            // The trace shows the last execution, as plain `run --trace` does.
            if (trace_out.is_open() && &batch == &batches.batches.back()) session.trace_next_execution(&trace_out);
            const ExecutionTiming timing = session.execute(uint32_t(batch.pairs));
            outcome.device_s += timing.device_s;
            outcome.end_to_end_s += timing.end_to_end_s();
            const std::vector<uint8_t>& out = session.output(kernels::device::kLogits);
            const std::vector<float> all = kernels::builder::decode_values(out.data(), out.size() / sizeof(float), isa::DType::Fp32);
            logits.insert(logits.end(), all.begin(), all.begin() + batch.pairs * classes);
            progress.execution_finished();
            ++outcome.executions;
        }
    }
    if (trace_out.is_open() && !trace_out) throw UserError("cannot write the trace file " + options.trace_file);

    const std::vector<kernels::Prediction> predictions = kernels::predictions_from_logits(logits, classes);
    if (predictions_out.is_open()) {
        kernels::write_predictions_tsv(predictions_out, predictions);
        predictions_out.flush();
        if (!predictions_out) throw UserError(options.predictions + ": write failed");
        outcome.predictions_file = options.predictions;
    }
    outcome.pairs = predictions.size();
    outcome.padding_sequences = batches.padding_rows;
    outcome.truncated = batches.truncated;
    if (file.has_labels) outcome.metrics = kernels::binary_metrics(classes_of(predictions), labels_of(file));
    if (options.json)
        print_pairs_json(std::cout, outcome);
    else
        print_pairs_text(std::cout, outcome);
    return 0;
}

}  // namespace nsim::tools
