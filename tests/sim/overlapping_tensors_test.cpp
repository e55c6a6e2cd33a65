// The race checker's "tensors placed over each other" against declared views (isa::kAliasMetadataPrefix):
// a view covers the tensors inside it on purpose; two views over each other, or a tensor reaching out
// of a view, are still mistakes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "race_check/race_checker.h"

namespace nsim::sim::race_check {
namespace {

isa::TensorInfo tensor(const std::string& name, uint64_t offset, uint64_t bytes) {
    isa::TensorInfo t;
    t.name = name;
    t.dtype = isa::DType::Fp32;
    t.shape = {bytes / 4};
    t.offset = offset;
    return t;
}

std::vector<std::string> overlaps(const isa::Container& program) {
    std::vector<std::string> found;
    for (const Finding& f : check(program))
        if (f.kind == FindingKind::OverlappingTensors) found.push_back(f.message);
    return found;
}

TEST(OverlappingTensors, ADeclaredViewCoversTheTensorsInsideItOnly) {
    isa::Container program;
    program.generation = 2;
    program.tensors = {tensor("g0", 0, 100), tensor("g1", 100, 100), tensor("bucket", 0, 200),
                       tensor("other bucket", 100, 200), tensor("late", 250, 100)};
    // Undeclared, every overlap is reported: g0 and g1 with bucket, g1 with other bucket, the two
    // buckets, other bucket and late.
    EXPECT_EQ(overlaps(program).size(), 5u);

    program.metadata = {{std::string(isa::kAliasMetadataPrefix) + "bucket", "g0"},
                        {std::string(isa::kAliasMetadataPrefix) + "other bucket", "g1"}};
    const std::vector<std::string> found = overlaps(program);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_NE(found[0].find("'bucket' [0x0, 0xc8) and 'other bucket' [0x64, 0x12c)"), std::string::npos) << found[0];
    EXPECT_NE(found[1].find("'other bucket' [0x64, 0x12c) and 'late' [0xfa, 0x15e)"), std::string::npos) << found[1];
}

}  // namespace
}  // namespace nsim::sim::race_check
