// Accuracy/F1 on counts worked out by hand, argmax, and the predictions file layout.
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "eval/classification_metrics.h"
#include "eval/predictions_tsv.h"
#include "kernels_test_support.h"

namespace nsim::kernels {
namespace {

TEST(BinaryMetrics, CountsAccuracyPrecisionRecallF1) {
    // tp 3, fp 1, fn 2, tn 4
    const std::vector<int> labels{1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
    const std::vector<int> predicted{1, 1, 1, 0, 0, 1, 0, 0, 0, 0};
    const BinaryMetrics m = binary_metrics(predicted, labels);
    EXPECT_EQ(m.true_positive, 3u);
    EXPECT_EQ(m.false_positive, 1u);
    EXPECT_EQ(m.false_negative, 2u);
    EXPECT_EQ(m.true_negative, 4u);
    EXPECT_DOUBLE_EQ(m.accuracy, 0.7);
    EXPECT_DOUBLE_EQ(m.precision, 0.75);
    EXPECT_DOUBLE_EQ(m.recall, 0.6);
    EXPECT_DOUBLE_EQ(m.f1, 2 * 0.75 * 0.6 / 1.35);
}

TEST(BinaryMetrics, AllNegativePredictionsHaveZeroF1AndMismatchedLengthsAreAnError) {
    const BinaryMetrics m = binary_metrics({0, 0, 0}, {1, 0, 0});
    EXPECT_DOUBLE_EQ(m.accuracy, 2.0 / 3);
    EXPECT_EQ(m.f1, 0.0);
    EXPECT_THROW(binary_metrics({0, 1}, {0}), InputError);
    EXPECT_THROW(binary_metrics({}, {}), InputError);
}

TEST(Predictions, ArgmaxPerRowFirstOnTies) {
    EXPECT_THAT(argmax_rows({0.1f, 0.9f, 2.0f, -1.0f, 0.5f, 0.5f}, 2), ::testing::ElementsAre(1, 0, 0));
}

TEST(Predictions, TsvHasHeaderThenIndexLabelAndRoundTrippableLogits) {
    const std::vector<Prediction> predictions = predictions_from_logits({1.119281f, -0.680854f, -0.25f, 3.0f}, 2);
    std::ostringstream out;
    write_predictions_tsv(out, predictions);
    EXPECT_EQ(out.str(), "index\tprediction\tlogit_0\tlogit_1\n0\t0\t1.119281\t-0.680854\n1\t1\t-0.25\t3\n");
}

TEST(Predictions, UnwritablePathIsOneLine) {
    try {
        write_predictions_tsv(std::filesystem::path("/nonexistent/dir/out.tsv"), {});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/dir/out.tsv: cannot create the predictions file");
    }
}

}  // namespace
}  // namespace nsim::kernels
