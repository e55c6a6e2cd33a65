// Every opcode of opcodes.def has functional semantics with a test in this directory, or is one
// that execute() deliberately does not compute (synchronisation, multi-core collectives). A new
// opcode in the table fails here until it gets both.
#include <set>

#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

using isa::Opcode;

// Opcodes whose results the tests in this directory check against a reference, and where.
const std::set<Opcode> kTested = {
    Opcode::Matmul,                 // tensor_engine_ops_test.cpp
    Opcode::Transpose,              // tensor_engine_ops_test.cpp
    Opcode::Activation,             // elementwise_ops_test.cpp
    Opcode::TensorTensor,           // elementwise_ops_test.cpp
    Opcode::TensorScalar,           // elementwise_ops_test.cpp
    Opcode::TensorPartitionScalar,  // elementwise_ops_test.cpp
    Opcode::Select,                 // elementwise_ops_test.cpp
    Opcode::TensorCopy,             // elementwise_ops_test.cpp
    Opcode::DmaCopy,                // elementwise_ops_test.cpp
    Opcode::TensorReduce,           // reduction_ops_test.cpp
    Opcode::PartitionReduce,        // reduction_ops_test.cpp
    Opcode::BnStats,                // reduction_ops_test.cpp
    Opcode::BnAggr,                 // reduction_ops_test.cpp
    Opcode::Memset,                 // index_pattern_ops_test.cpp
    Opcode::Iota,                   // index_pattern_ops_test.cpp
    Opcode::AffineSelect,           // index_pattern_ops_test.cpp
};

const std::set<Opcode> kSynchronisation = {Opcode::Nop, Opcode::SemSet, Opcode::Barrier};

std::vector<Opcode> table() {
    return {
#define NSIM_OPCODE(id, mnemonic, engines, cost, fields) Opcode::id,
#include "isa/opcodes.def"
#undef NSIM_OPCODE
    };
}

TEST(OpcodeCoverage, EveryOpcodeIsComputedAndTestedOrDeliberatelyLeftToTheEngines) {
    for (Opcode op : table()) {
        const std::string name(isa::info(op).mnemonic);
        if (is_executed_by_semantics(op))
            EXPECT_TRUE(kTested.count(op)) << name << " is executed but has no functional test";
        else
            EXPECT_FALSE(kTested.count(op)) << name;
    }
    EXPECT_FALSE(is_executed_by_semantics(Opcode::Invalid));
}

TEST(OpcodeCoverage, SynchronisationComputesNothingAndCollectivesAreTheEnginesBusiness) {
    Machine m;
    for (Opcode op : table()) {
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
