// The WordPiece tokenizer against ids worked out by hand from the uncased vocab (vocab line number - 1),
// on MRPC sentences and on the cases that trip tokenizers: accents, curly quotes, CJK, control
// characters, words the vocab cannot cover, truncation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "kernels_test_support.h"
#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/wordpiece.h"

namespace nsim::kernels {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

const BertTokenizer& tokenizer() {
    static const BertTokenizer instance(WordPieceVocab::load(testing::vocab_path()));
    return instance;
}

std::vector<int32_t> ids(std::string_view text) { return tokenizer().tokenize_to_ids(text); }

TEST(WordPieceVocab, SpecialTokensHaveTheirUsualIds) {
    const WordPieceVocab& v = tokenizer().vocab();
    EXPECT_EQ(v.size(), 30522u);
    EXPECT_EQ(v.pad_id(), 0);
    EXPECT_EQ(v.unk_id(), 100);
    EXPECT_EQ(v.cls_id(), 101);
    EXPECT_EQ(v.sep_id(), 102);
    EXPECT_EQ(v.token(1996), "the");
}

TEST(BertTokenizer, MrpcSentenceWithApostrophesHyphenAndAnUnknownCompound) {
    // "foodservice" is not in the vocab: longest-first gives foods ##er ##vic ##e.
    EXPECT_THAT(ids("He said the foodservice pie business doesn 't fit the company 's long-term growth strategy ."),
                ElementsAre(2002, 2056, 1996, 9440, 2121, 7903, 2063, 11345, 2449, 2987, 1005, 1056, 4906, 1996, 2194,
                            1005, 1055, 2146, 1011, 2744, 3930, 5656, 1012));
    EXPECT_THAT(tokenizer().tokenize("foodservice"), ElementsAre("foods", "##er", "##vic", "##e"));
}

TEST(BertTokenizer, AccentsAreStrippedWhetherComposedOrDecomposed) {
    // MRPC: "Jean Chrétien", "Les Misérables".
    EXPECT_THAT(ids("Prime Minister Jean Chrétien"), ElementsAre(3539, 2704, 3744, 10381, 13465, 9013));
    EXPECT_THAT(ids("Prime Minister Jean Chre\xCC\x81tien"), ElementsAre(3539, 2704, 3744, 10381, 13465, 9013));
    EXPECT_THAT(ids("Les Misérables"), ElementsAre(4649, 13736, 2015));
    EXPECT_THAT(ids("NAÏVE"), ElementsAre(15743));
}

TEST(BertTokenizer, MicroSignIsALetterWithoutDecomposition) {
    // MRPC: "The µGuru microcontroller"; U+00B5 has only a compatibility decomposition, so it stays.
    EXPECT_THAT(ids("µGuru"), ElementsAre(1085, 27390, 2226));
}

TEST(BertTokenizer, UnicodeAndAsciiPunctuationAreSplitOff) {
    EXPECT_THAT(ids("Bin Laden ’ s men"), ElementsAre(8026, 14887, 1521, 1055, 2273));
    EXPECT_THAT(ids("Bin Laden’s men"), ElementsAre(8026, 14887, 1521, 1055, 2273));
    EXPECT_THAT(ids("$1.8 billion"), ElementsAre(1002, 1015, 1012, 1022, 4551));
    EXPECT_THAT(ids("\"100 percent\""), ElementsAre(1000, 2531, 3867, 1000));
}

TEST(BertTokenizer, CjkIdeographsBecomeSingleCharacterWords) {
    EXPECT_THAT(ids("中文ok"), ElementsAre(1746, 1861, 7929));
}

TEST(BertTokenizer, ControlCharactersVanishAndUnicodeSpacesSeparate) {
    // U+00A0 (no-break space) separates; U+0001 and the zero-width joiner-like format char U+200B vanish.
    EXPECT_THAT(ids("a\xC2\xA0" "b\tc\x01" "d\xE2\x80\x8B"), ElementsAre(1037, 1038, 3729));
}

TEST(BertTokenizer, UncoverableAndOverlongWordsAreUnknown) {
    EXPECT_THAT(ids("ok \xF0\x9F\x99\x82 ok"), ElementsAre(7929, 100, 7929));  // an emoji
    EXPECT_THAT(ids(std::string(101, 'x')), ElementsAre(100));
    EXPECT_NE(ids(std::string(100, 'x')).front(), 100);
    EXPECT_THAT(ids("\xFF\xFE"), ElementsAre());  // invalid UTF-8 is dropped like U+FFFD
}

TEST(BertTokenizer, SpecialTokensTypedInTheTextAreKept) {
    // The test vector of shared/data/bert-tiny-sst2-fhe (SST-2 validation idx 1).
    const std::vector<int32_t> expected{101, 4895, 10258, 2378, 8450, 2135, 21657, 1998, 7143, 102};
    EXPECT_THAT(ids("[CLS] unflinchingly bleak and desperate [SEP]"), ElementsAreArray(expected));
}

TEST(BertTokenizer, CasedOptionKeepsCaseAndAccents) {
    BasicTokenizerOptions cased;
    cased.lower_case = false;
    EXPECT_THAT(basic_tokenize("Chrétien's", cased), ElementsAre("Chrétien", "'", "s"));
    EXPECT_THAT(basic_tokenize("Chrétien's"), ElementsAre("chretien", "'", "s"));
}

TEST(SentencePairEncoding, ClsASepBSepThenPadding) {
    const EncodedInput e = tokenizer().encode_pair("He said.", "His wife was 100 percent behind.", 16);
    EXPECT_THAT(e.input_ids,
                ElementsAre(101, 2002, 2056, 1012, 102, 2010, 2564, 2001, 2531, 3867, 2369, 1012, 102, 0, 0, 0));
    EXPECT_THAT(e.token_type_ids, ElementsAre(0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0));
    EXPECT_THAT(e.attention_mask, ElementsAre(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0));
    EXPECT_EQ(e.real_length, 13u);
    EXPECT_FALSE(e.truncated);
}

TEST(SentencePairEncoding, LongestFirstTruncationOfARealMrpcPair) {
    // 23 + 17 tokens into 16 - 3 = 13: the longer loses 6, then they alternate (second first) -> 7 + 6.
    const EncodedInput e = tokenizer().encode_pair(
        "He said the foodservice pie business doesn 't fit the company 's long-term growth strategy .",
        "\" The foodservice pie business does not fit our long-term growth strategy .", 16);
    EXPECT_THAT(e.input_ids, ElementsAre(101, 2002, 2056, 1996, 9440, 2121, 7903, 2063, 102, 1000, 1996, 9440, 2121,
                                         7903, 2063, 102));
    EXPECT_THAT(e.token_type_ids, ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1));
    EXPECT_TRUE(e.truncated);
}

TEST(SentencePairEncoding, TruncationRuleMatchesTransformers) {
    std::vector<int32_t> a{1, 2, 3, 4}, b{5, 6, 7, 8};
    truncate_longest_first(a, b, 5);
    EXPECT_THAT(a, ElementsAre(1, 2, 3));
    EXPECT_THAT(b, ElementsAre(5, 6));
    std::vector<int32_t> c{1, 2}, d{3, 4, 5, 6, 7, 8};
    truncate_longest_first(c, d, 5);
    EXPECT_THAT(c, ElementsAre(1, 2));
    EXPECT_THAT(d, ElementsAre(3, 4, 5));
}

TEST(SentencePairEncoding, SingleSentenceAndBatch) {
    const EncodedInput one = tokenizer().encode_single("He said.", 6);
    EXPECT_THAT(one.input_ids, ElementsAre(101, 2002, 2056, 1012, 102, 0));
    const EncodedInput two = tokenizer().encode_single("Bin Laden ’ s men", 6);
    EXPECT_THAT(two.input_ids, ElementsAre(101, 8026, 14887, 1521, 1055, 102));
    const TokenBatch batch = make_token_batch({one, two});
    EXPECT_EQ(batch.batch, 2u);
    EXPECT_EQ(batch.seq_len, 6u);
    EXPECT_EQ(batch.input_ids.size(), 12u);
    EXPECT_EQ(batch.attention_mask[5], 0);
    EXPECT_EQ(batch.attention_mask[11], 1);
    EXPECT_THROW(make_token_batch({one, tokenizer().encode_single("x", 7)}), InputError);
}

TEST(SentencePairEncoding, LengthTooShortForSpecialTokensIsAnError) {
    try {
        tokenizer().encode_pair("a", "b", 2);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "sequence length 2 is too short: [CLS] and [SEP] alone need 3");
    }
}

TEST(WordPieceVocab, MissingFileAndMissingSpecialTokenAreOneLineErrors) {
    try {
        WordPieceVocab::load("/nonexistent/vocab.txt");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/vocab.txt: cannot open the vocabulary: No such file or directory");
    }
    testing::ScratchDir dir;
    testing::write_text(dir / "vocab.txt", "[PAD]\n[CLS]\n[SEP]\nthe\n");
    try {
        WordPieceVocab::load(dir / "vocab.txt");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), (dir / "vocab.txt").string() + ": vocabulary has no [UNK] token");
    }
}

TEST(WordPieceVocab, SmallVocabGreedyLongestMatch) {
    const WordPieceVocab v({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "unaff", "##aff", "##able", "##a", "##ffable"},
                           "test vocab");
    std::vector<int32_t> out;
    wordpiece_split("unaffable", v, out);
    EXPECT_THAT(out, ElementsAre(5, 7));  // "unaff" beats "un", then "##able"
    out.clear();
    wordpiece_split("unaffablez", v, out);
    EXPECT_THAT(out, ElementsAre(1));  // one uncovered character makes the whole word [UNK]
}

}  // namespace
}  // namespace nsim::kernels
