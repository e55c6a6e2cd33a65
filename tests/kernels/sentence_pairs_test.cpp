// The MRPC dev file as shipped, and sentence-pair files with the mistakes users make.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "eval/sentence_pairs.h"
#include "kernels_test_support.h"

namespace nsim::kernels {
namespace {

std::string read_error(const std::filesystem::path& path) {
    try {
        read_sentence_pairs(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(SentencePairs, ReadsTheMrpcDevFile) {
    const SentencePairFile file = read_sentence_pairs(testing::shared_data("mrpc/glue_mrpc_dev.tsv"));
    ASSERT_TRUE(file.has_labels);
    ASSERT_EQ(file.pairs.size(), 408u);
    size_t positives = 0;
    for (const auto& p : file.pairs) positives += *p.label == 1;
    EXPECT_EQ(positives, 279u);
    const SentencePair& first = file.pairs.front();
    EXPECT_EQ(first.id_a, "1355540");
    EXPECT_EQ(first.id_b, "1355592");
    EXPECT_EQ(first.line, 2u);
    // Quotes are text, not CSV quoting: the second sentence starts with one that is never closed.
    EXPECT_EQ(first.b, "\" The foodservice pie business does not fit our long-term growth strategy .");
    // The last line has no trailing newline and is read whole.
    const SentencePair& last = file.pairs.back();
    EXPECT_EQ(last.line, 409u);
    EXPECT_EQ(*last.label, 1);
    EXPECT_EQ(last.b, "In Soviet times the Beatles ' music \" was considered propaganda of an alien ideology .");
}

TEST(SentencePairs, CrlfLineEndsAndBlankLinesAndUnlabelledFiles) {
    testing::ScratchDir dir;
    testing::write_text(dir / "crlf.tsv", "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n0\t1\t2\tA \" b\tC\r\n\r\n");
    const SentencePairFile crlf = read_sentence_pairs(dir / "crlf.tsv");
    ASSERT_EQ(crlf.pairs.size(), 1u);
    EXPECT_EQ(crlf.pairs[0].a, "A \" b");
    EXPECT_EQ(crlf.pairs[0].b, "C");
    EXPECT_EQ(*crlf.pairs[0].label, 0);
    testing::write_text(dir / "test.tsv", "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n0\t1\t2\tA\tB");
    const SentencePairFile unlabelled = read_sentence_pairs(dir / "test.tsv");
    EXPECT_FALSE(unlabelled.has_labels);
    ASSERT_EQ(unlabelled.pairs.size(), 1u);
    EXPECT_FALSE(unlabelled.pairs[0].label.has_value());
}

TEST(SentencePairErrors, EachIsOneLineWithFileAndLine) {
    testing::ScratchDir dir;
    const std::string header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
    EXPECT_EQ(read_error("/nonexistent/pairs.tsv"), "/nonexistent/pairs.tsv: cannot open the sentence-pair file: No such file or directory");

    testing::write_text(dir / "empty.tsv", "");
    EXPECT_EQ(read_error(dir / "empty.tsv"), (dir / "empty.tsv").string() + ": empty file (expected the MRPC header)");

    testing::write_text(dir / "csv.tsv", "Quality,#1 ID,#2 ID,#1 String,#2 String\n");
    EXPECT_EQ(read_error(dir / "csv.tsv"),
              (dir / "csv.tsv").string() +
                  ":1: expected the MRPC header \"Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 String\"");

    testing::write_text(dir / "fields.tsv", header + "1\t2\t3\tA\tB\n1\t2\tA\tB\n");
    EXPECT_EQ(read_error(dir / "fields.tsv"), (dir / "fields.tsv").string() + ":3: expected 5 tab-separated fields, found 4");

    testing::write_text(dir / "label.tsv", header + "yes\t2\t3\tA\tB\n");
    EXPECT_EQ(read_error(dir / "label.tsv"), (dir / "label.tsv").string() + ":2: label must be 0 or 1, found \"yes\"");
}

}  // namespace
}  // namespace nsim::kernels
