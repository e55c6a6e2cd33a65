// A WordPiece vocabulary file (vocab.txt): one token per line, the line number (from 0) is the id.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nsim::kernels {

class WordPieceVocab {
public:
    // Throws InputError for a missing file or one without [PAD], [UNK], [CLS] and [SEP].
    static WordPieceVocab load(const std::filesystem::path& path);
    // From tokens in id order; `source` names them in messages.
    WordPieceVocab(std::vector<std::string> tokens, const std::string& source);

    std::optional<int32_t> find(std::string_view token) const;
    const std::string& token(int32_t id) const { return tokens_.at(static_cast<size_t>(id)); }
    size_t size() const { return tokens_.size(); }

    int32_t pad_id() const { return pad_id_; }
    int32_t unk_id() const { return unk_id_; }
    int32_t cls_id() const { return cls_id_; }
    int32_t sep_id() const { return sep_id_; }

private:
    std::vector<std::string> tokens_;
    std::unordered_map<std::string, int32_t> ids_;
    int32_t pad_id_ = 0, unk_id_ = 0, cls_id_ = 0, sep_id_ = 0;
};

}  // namespace nsim::kernels
