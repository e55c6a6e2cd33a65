#include "tokenizer/wordpiece_vocab.h"

#include <sstream>

#include <fmt/format.h>

#include "common/input_error.h"
#include "common/input_file.h"

namespace nsim::kernels {
namespace {
// BERT's uncased vocabulary is 226 KB (30,522 tokens); multilingual ones stay under 2 MB.
constexpr uint64_t kMaxVocabBytes = uint64_t(64) << 20;
}  // namespace

WordPieceVocab WordPieceVocab::load(const std::filesystem::path& path) {
    std::istringstream in(read_input_text(path, kMaxVocabBytes, "vocabulary"));
    std::vector<std::string> tokens;
    std::string line;
    while (std::getline(in, line)) {
        // Only the line end is stripped (as transformers does); a token may contain other spaces.
        if (!line.empty() && line.back() == '\r') line.pop_back();
        tokens.push_back(std::move(line));
    }
    return WordPieceVocab(std::move(tokens), path.string());
}

WordPieceVocab::WordPieceVocab(std::vector<std::string> tokens, const std::string& source) : tokens_(std::move(tokens)) {
    // A repeated token maps to its last line, as in transformers' load_vocab.
    for (size_t i = 0; i < tokens_.size(); ++i) ids_[tokens_[i]] = static_cast<int32_t>(i);
    auto special = [&](const char* name) {
        auto id = find(name);
        if (!id) throw InputError(fmt::format("{}: vocabulary has no {} token", source, name));
        return *id;
    };
    pad_id_ = special("[PAD]");
    unk_id_ = special("[UNK]");
    cls_id_ = special("[CLS]");
    sep_id_ = special("[SEP]");
}

std::optional<int32_t> WordPieceVocab::find(std::string_view token) const {
    auto it = ids_.find(std::string(token));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
}

}  // namespace nsim::kernels
