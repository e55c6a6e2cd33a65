// Sentence-pair files in the GLUE MRPC layout: a header line, then one pair per line as five
// tab-separated fields "label  #1 ID  #2 ID  #1 String  #2 String". Fields are split on tabs only: a
// double quote is an ordinary character (the corpus has unbalanced ones), not CSV quoting. The last line
// may lack its newline, and CRLF line ends are accepted. A file whose header starts with "index" (the
// GLUE test split) has no labels.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nsim::kernels {

struct SentencePair {
    std::optional<int> label;  // 1 = paraphrase, 0 = not
    std::string id_a, id_b;
    std::string a, b;
    size_t line = 0;  // 1-based line in the file, for messages
};

struct SentencePairFile {
    bool has_labels = false;
    std::vector<SentencePair> pairs;
};

// Throws InputError "<file>:<line>: <problem>" for the first malformed line.
SentencePairFile read_sentence_pairs(const std::filesystem::path& path);

}  // namespace nsim::kernels
