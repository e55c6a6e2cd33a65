#include "library/pair_classification.h"

#include "builder/program_builder.h"
#include "device/bert_program.h"
#include "eval/pair_batches.h"

namespace nsim::library {

PairClassification classify_pairs(Session& session, const TokenInputs& inputs, const kernels::BertTokenizer& tokenizer,
                                   const std::vector<kernels::SentencePair>& pairs, const PairHooks& hooks) {
    const isa::Container& program = session.program();
    const kernels::PairBatches batches =
        kernels::batch_sentence_pairs(tokenizer, pairs, metadata_u32(program, "seq_len", 0), session.sequences_per_execution());
    const size_t classes = metadata_u32(program, "num_labels", 2);
    if (hooks.batches_ready) hooks.batches_ready(batches.batches.size());

    PairClassification result;
    std::vector<float> logits;
    for (const kernels::PairBatch& batch : batches.batches) {
        inputs.write(batch.tokens, session);
        session.trace_next_execution(hooks.trace_for_execution ? hooks.trace_for_execution(result.executions) : nullptr);
        const ExecutionTiming timing = session.execute(uint32_t(batch.pairs));
        result.device_s += timing.device_s;
        result.end_to_end_s += timing.end_to_end_s();
        const std::vector<uint8_t>& out = session.output(kernels::device::kLogits);
        const std::vector<float> all = kernels::builder::decode_values(out.data(), out.size() / sizeof(float), isa::DType::Fp32);
        logits.insert(logits.end(), all.begin(), all.begin() + batch.pairs * classes);
        if (hooks.execution_finished) hooks.execution_finished();
        ++result.executions;
    }
    result.predictions = kernels::predictions_from_logits(logits, classes);
    result.padding_sequences = batches.padding_rows;
    result.truncated = batches.truncated;
    return result;
}

}  // namespace nsim::library
