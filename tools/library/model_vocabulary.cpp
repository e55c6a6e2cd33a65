#include "library/model_vocabulary.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "library/library_error.h"
#include "library/program_session.h"

namespace nsim::library {

namespace fs = std::filesystem;

fs::path default_vocabulary_path() { return fs::path(NSIM_SHARED_DATA_DIR) / "vocab" / "bert-base-uncased-vocab.txt"; }

fs::path model_vocabulary_path(const isa::Container& program, const std::string& vocab_option) {
    if (!vocab_option.empty()) return vocab_option;
    const std::string recorded = program.metadata_value("vocab");
    if (!recorded.empty() && !fs::exists(recorded))
        throw Error(fmt::format("{}: the checkpoint's vocabulary that neuron-build recorded is gone (name one with --vocab)",
                                recorded));
    return recorded.empty() ? default_vocabulary_path() : fs::path(recorded);
}

kernels::WordPieceVocab model_vocabulary(const isa::Container& program, const std::string& vocab_option) {
    const fs::path path = model_vocabulary_path(program, vocab_option);
    try {
        kernels::WordPieceVocab vocab = kernels::WordPieceVocab::load(path);
        const uint32_t rows = metadata_u32(program, "vocab_size", UINT32_MAX);
        if (vocab.size() > rows)
            throw Error(fmt::format("{}: {} tokens, but the model's word table has {} rows (vocab_size)", path.string(),
                                        vocab.size(), rows));
        return vocab;
    } catch (const kernels::InputError& e) {
        throw Error(e.what());
    }
}

}  // namespace nsim::library
