// Every opcode of opcodes.def has its functional result checked against a reference by a test in
// this directory, or is synchronisation, which computes nothing (checked here). The opcode list comes
// from the table itself, so a new opcode fails here until it has a test file that uses it.
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

using isa::Opcode;

// The file whose tests check each opcode's result against a reference.
const std::map<Opcode, std::string> kFunctionalTest = {
    {Opcode::Matmul, "tensor_engine_ops_test.cpp"},
    {Opcode::Transpose, "tensor_engine_ops_test.cpp"},
    {Opcode::Activation, "elementwise_ops_test.cpp"},
    {Opcode::TensorTensor, "elementwise_ops_test.cpp"},
    {Opcode::TensorScalar, "elementwise_ops_test.cpp"},
    {Opcode::TensorPartitionScalar, "elementwise_ops_test.cpp"},
    {Opcode::Select, "elementwise_ops_test.cpp"},
    {Opcode::TensorCopy, "elementwise_ops_test.cpp"},
    {Opcode::DmaCopy, "elementwise_ops_test.cpp"},
    {Opcode::DmaGather, "gather_ops_test.cpp"},
    {Opcode::TensorReduce, "reduction_ops_test.cpp"},
    {Opcode::PartitionReduce, "reduction_ops_test.cpp"},
    {Opcode::BnStats, "reduction_ops_test.cpp"},
    {Opcode::BnAggr, "reduction_ops_test.cpp"},
    {Opcode::Memset, "index_pattern_ops_test.cpp"},
    {Opcode::Iota, "index_pattern_ops_test.cpp"},
    {Opcode::AffineSelect, "index_pattern_ops_test.cpp"},
    {Opcode::AllReduce, "collective_ops_test.cpp"},
    {Opcode::AllGather, "collective_ops_test.cpp"},
    {Opcode::ReduceScatter, "collective_ops_test.cpp"},
    {Opcode::Send, "collective_ops_test.cpp"},
    {Opcode::Recv, "collective_ops_test.cpp"},
    {Opcode::SetRounding, "rounding_ops_test.cpp"},
    {Opcode::SetRngSeed, "dropout_ops_test.cpp"},
    {Opcode::Dropout, "dropout_ops_test.cpp"},
};

const std::set<Opcode> kSynchronisation = {Opcode::Nop, Opcode::SemSet, Opcode::Barrier, Opcode::Mark};

struct TableEntry {
    Opcode opcode;
    std::string id;  // the C++ name in opcodes.def
};

std::vector<TableEntry> table() {
    return {
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) {Opcode::id, #id},
#include "isa/opcodes.def"
#undef NSIM_OPCODE
    };
}

std::vector<Opcode> opcodes() {
    std::vector<Opcode> out;
    for (const TableEntry& e : table()) out.push_back(e.opcode);
    return out;
}

std::string test_file(const std::string& name) {
    std::ifstream in(std::string(NSIM_SEMANTICS_TEST_DIR) + "/" + name);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Whether `text` names Opcode::<id> (and not merely a longer name starting with it).
bool uses_opcode(const std::string& text, const std::string& id) {
    const std::string name = "Opcode::" + id;
    for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        const size_t after = at + name.size();
        if (after == text.size() || !(std::isalnum(static_cast<unsigned char>(text[after])) || text[after] == '_')) return true;
    }
    return false;
}

TEST(OpcodeCoverage, EveryOpcodeOfTheTableHasAFunctionalTestThatUsesIt) {
    const std::vector<TableEntry> entries = table();
    ASSERT_FALSE(entries.empty());
    for (const TableEntry& e : entries) {
        const std::string name(isa::info(e.opcode).mnemonic);
        const auto test = kFunctionalTest.find(e.opcode);
        if (kSynchronisation.count(e.opcode)) {
            EXPECT_EQ(test, kFunctionalTest.end()) << name << " is synchronisation and computes nothing";
            EXPECT_FALSE(is_executed_by_semantics(e.opcode)) << name;
            continue;
        }
        if (test == kFunctionalTest.end()) {
            ADD_FAILURE() << name << " (Opcode::" << e.id << ") has no functional test: write one against a plain "
                          << "reference and name its file in kFunctionalTest";
            continue;
        }
        const std::string text = test_file(test->second);
        ASSERT_FALSE(text.empty()) << "cannot read " << test->second;
        EXPECT_TRUE(uses_opcode(text, e.id)) << test->second << " does not use Opcode::" << e.id;
    }
}

TEST(OpcodeCoverage, TheCheckRecognisesAnOpcodeOnlyByItsWholeName) {
    EXPECT_TRUE(uses_opcode("make(isa::Opcode::Send);", "Send"));
    EXPECT_FALSE(uses_opcode("make(isa::Opcode::SendMore);", "Send"));
    EXPECT_FALSE(uses_opcode("Opcode::Sen", "Send"));
    EXPECT_FALSE(uses_opcode(test_file("collective_ops_test.cpp"), "Matmul"));
}

TEST(OpcodeCoverage, SynchronisationComputesNothingAndCollectivesAreTheEnginesBusiness) {
    Machine m;
    for (Opcode op : opcodes()) {
        if (is_executed_by_semantics(op)) continue;
        isa::Instruction inst = make(op);
        if (kSynchronisation.count(op)) {
            EXPECT_NO_THROW(execute(inst, m.spaces())) << isa::info(op).mnemonic;
            EXPECT_EQ(m.sbuf.resident_bytes() + m.psum.resident_bytes() + m.dram.resident_bytes(), 0u);
        } else {
            EXPECT_THROW(execute(inst, m.spaces()), std::logic_error) << isa::info(op).mnemonic;
        }
    }
    EXPECT_THROW(execute(make(Opcode::Invalid), m.spaces()), SemanticsError);
    EXPECT_THROW(execute(make(Opcode(999)), m.spaces()), SemanticsError);
}

TEST(OpcodeCoverage, HostileOperandsAreRefusedBeforeAnythingIsAllocated) {
    Machine m;
    isa::Instruction inst = make(Opcode::Memset);
    inst.set(isa::fields::Memset::dst, sbuf(DType::Fp32, 0, 1, 0, {{0, 65536}, {0, 65536}, {0, 65536}}));
    try {
        execute(inst, m.spaces());
        FAIL() << "no error";
    } catch (const SemanticsError& e) {
        EXPECT_STREQ(e.what(), "memset: operand 'dst': sbuf operand names more than 2^32 elements");
    }
    inst.set(isa::fields::Memset::dst, sbuf_tile(DType(77), 0, 1, 0, 4));
    EXPECT_THROW(execute(inst, m.spaces()), SemanticsError);
    isa::Instruction tt = make(Opcode::TensorTensor);
    tt.set(isa::fields::TensorTensor::dst, sbuf_tile(DType::Fp32, 0, 1, 0, 4));
    tt.set(isa::fields::TensorTensor::src0, sbuf_tile(DType::Fp32, 0, 1, 0, 4));
    tt.set(isa::fields::TensorTensor::src1, sbuf_tile(DType::Fp32, 0, 1, 0, 4)).set_u32(isa::fields::TensorTensor::op, 99);
    EXPECT_THROW(execute(tt, m.spaces()), SemanticsError);  // no such ALU operator
}

}  // namespace
}  // namespace nsim::sim::core::test
