// One execution's inputs from token ids, as the model was built: with the embedding on the host, the
// embedding-layer output computed here in fp32 (as the seeds' CPU does it) from the tables neuron-build
// wrote next to the program file; with the embedding on the device, the token and segment ids
// themselves. The attention mask either way.
#pragma once

#include <filesystem>
#include <optional>

#include "bert/bert_weights.h"
#include "bert/token_batch.h"
#include "isa/container.h"
#include "library/program_session.h"

namespace nsim::library {

class TokenInputs {
public:
    // Error when the model embeds on the host but has no tables (built from weights without
    // embeddings, such as bert-tiny-sst2-fhe, or by an older neuron-build) or they are no longer next to
    // `model_file`. Keeps a reference to `program`.
    TokenInputs(const isa::Container& program, const std::filesystem::path& model_file);

    // `tokens` holds exactly the sequences of one execution.
    void write(const kernels::TokenBatch& tokens, Session& session) const;

private:
    void write_tensor(Session& session, const char* name, const std::vector<float>& values) const;

    const isa::Container& program_;
    std::optional<kernels::BertEmbeddingWeights> host_tables_;
    double layer_norm_eps_ = 1e-12;
};

}  // namespace nsim::library
