#include "eval/sentence_pairs.h"

#include <sstream>

#include <fmt/format.h>

#include "common/input_error.h"
#include "common/input_file.h"

namespace nsim::kernels {
namespace {

constexpr size_t kFieldCount = 5;
// MRPC's dev split is 0.4 MB; the largest GLUE pair task (QQP's train split) is about 40 MB.
constexpr uint64_t kMaxPairFileBytes = uint64_t(256) << 20;

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
        fields.push_back(line.substr(start, tab - start));
    fields.push_back(line.substr(start));
    return fields;
}

}  // namespace

SentencePairFile read_sentence_pairs(const std::filesystem::path& path) {
    const std::string source = path.string();
    std::istringstream in(read_input_text(path, kMaxPairFileBytes, "sentence-pair file"));

    SentencePairFile file;
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (number == 1 && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // BOM
        const std::vector<std::string> fields = split_tabs(line);
        if (number == 1) {
            if (fields.size() != kFieldCount || (fields[0] != "Quality" && fields[0] != "index"))
                throw InputError(fmt::format(
                    "{}:1: expected the MRPC header \"Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 String\"",
                    source));
            file.has_labels = fields[0] == "Quality";
            continue;
        }
        if (line.empty()) continue;
        if (fields.size() != kFieldCount)
            throw InputError(fmt::format("{}:{}: expected {} tab-separated fields, found {}", source, number,
                                         kFieldCount, fields.size()));
        SentencePair pair{std::nullopt, fields[1], fields[2], fields[3], fields[4], number};
        if (file.has_labels) {
            if (fields[0] != "0" && fields[0] != "1")
                throw InputError(fmt::format("{}:{}: label must be 0 or 1, found \"{}\"", source, number, fields[0]));
            pair.label = fields[0] == "1" ? 1 : 0;
        }
        file.pairs.push_back(std::move(pair));
    }
    if (number == 0) throw InputError(fmt::format("{}: empty file (expected the MRPC header)", source));
    return file;
}

}  // namespace nsim::kernels
