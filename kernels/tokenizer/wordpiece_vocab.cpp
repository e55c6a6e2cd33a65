#include "tokenizer/wordpiece_vocab.h"

#include <fstream>

#include <fmt/format.h>

#include "common/input_error.h"

namespace nsim::kernels {

WordPieceVocab WordPieceVocab::load(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open the vocabulary", path.string()));
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
