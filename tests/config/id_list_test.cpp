// Linux cpulist text (NUMA nodes' CPUs in configs/, neuron-ls's CPU AFFINITY and NEURON CORE IDS):
// parsed into ids and written back.
#include <gtest/gtest.h>

#include "config/id_list.h"

namespace nsim::config {
namespace {

using Ids = std::vector<uint32_t>;

TEST(IdList, ParsesRangesAndSingleIdsInAnyOrder) {
    EXPECT_EQ(parse_id_list("0-3"), Ids({0, 1, 2, 3}));
    EXPECT_EQ(parse_id_list("7"), Ids({7}));
    EXPECT_EQ(parse_id_list("48-50,0-1,9"), Ids({0, 1, 9, 48, 49, 50}));
}

TEST(IdList, RejectsWhatIsNotAList) {
    for (const char* bad : {"", "-", "3-", "-3", "1,,2", "a", "1-2-3", "3-1", "0-2,2", " 1", "1 "})
        EXPECT_FALSE(parse_id_list(bad).has_value()) << "'" << bad << "'";
}

TEST(IdList, WritesRunsAsRanges) {
    EXPECT_EQ(format_id_list({0, 1, 2, 3}), "0-3");
    EXPECT_EQ(format_id_list({5}), "5");
    EXPECT_EQ(format_id_list({0, 1, 9, 48, 49, 50}), "0-1,9,48-50");
    EXPECT_EQ(format_id_list({}), "");
    EXPECT_EQ(format_id_list(*parse_id_list("24-47,72-95")), "24-47,72-95");
}

}  // namespace
}  // namespace nsim::config
