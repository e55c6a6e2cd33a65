// Sentence pairs classified by a neuron-build BERT on a session, as the TorchServe demo does on real
// hardware: each pair tokenized ([CLS] a [SEP] b [SEP], truncated or padded to the model's sequence
// length), its inputs made as the model was built (library/token_inputs.h), executed in batches of
// every copy's compiled batch at once (the last one padded with dummy sequences that are not counted),
// the logits read back into predictions. `neuron-sim run --pairs` prints what this returns.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "eval/predictions_tsv.h"
#include "eval/sentence_pairs.h"
#include "core/trace_writer.h"
#include "library/program_session.h"
#include "library/token_inputs.h"
#include "tokenizer/bert_tokenizer.h"

namespace nsim::library {

struct PairClassification {
    std::vector<kernels::Prediction> predictions;   // one per pair, in order
    size_t executions = 0, padding_sequences = 0, truncated = 0;
    double device_s = 0;      // engines, summed over the executions
    double end_to_end_s = 0;  // host embedding + PCIe + runtime + engines, summed
};

// Before the first execution, `batches_ready(n)` says how many executions there will be; after each,
// `execution_finished()`. Before execution i (0-based), `trace_for_execution(i)` says where its
// Chrome trace goes (null or unset: not traced).
struct PairHooks {
    std::function<void(size_t executions)> batches_ready;
    std::function<void()> execution_finished;
    std::function<sim::core::TraceWriter*(size_t execution)> trace_for_execution;
};

PairClassification classify_pairs(Session& session, const TokenInputs& inputs, const kernels::BertTokenizer& tokenizer,
                                   const std::vector<kernels::SentencePair>& pairs, const PairHooks& hooks);

}  // namespace nsim::library
