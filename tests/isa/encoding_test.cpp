// Every opcode of the table encodes and decodes to the same instruction, at the size the table says,
// and survives disassembly and reassembly.
#include <gtest/gtest.h>

#include "isa/encoding.h"
#include "isa/text_format.h"
#include "isa_test_support.h"

namespace nsim::isa {
namespace {

// A value of each field kind that differs from the defaults, so a dropped field shows.
Instruction filled(const OpcodeInfo& op, uint32_t seed) {
    Instruction inst;
    inst.opcode = op.opcode;
    inst.sync.wait_semaphore = uint16_t(seed % 7);
    inst.sync.wait_value = seed * 3 + 1;
    inst.sync.signal_semaphore = uint16_t(seed % 5 + 1);
    for (size_t f = 0; f < op.field_count; ++f) {
        const uint32_t v = seed * 31 + uint32_t(f) * 17;
        switch (op.fields[f].kind) {
            case FieldKind::AccessPattern: {
                AccessPattern ap = test::sbuf(DType::Bf16, 16 + f, 64 * f, 32);
                ap.partition_start = uint32_t(f);
                ap.dim_count = 2;
                ap.dims[1] = {-3, 4};
                if (op.fields[f].spaces & table_names::DRAM) {
                    ap = test::dram(0, DType::Fp8E5m2, 8, 256, 128, 16);
                }
                inst.set(f, ap);
                break;
            }
            case FieldKind::F32: inst.set_f32(f, -1.5f * float(v)); break;
            case FieldKind::I32: inst.set_i32(f, -int32_t(v)); break;
            case FieldKind::U32: inst.set_u32(f, v); break;
            case FieldKind::Activation: inst.set_enum(f, ActivationFunction::GeluTanh); break;
            case FieldKind::Alu: inst.set_enum(f, AluOp::IsGe); break;
            case FieldKind::Reduce: inst.set_enum(f, ReduceOp::Max); break;
            case FieldKind::Accumulate: inst.set_enum(f, AccumulateMode::Accumulate); break;
            case FieldKind::Semaphore: inst.set_u32(f, 3); break;
        }
    }
    return inst;
}

std::vector<const OpcodeInfo*> all_opcodes() {
    std::vector<const OpcodeInfo*> ops;
    for (uint16_t raw = 1; raw <= opcode_count(); ++raw) ops.push_back(find_opcode(raw));
    return ops;
}

TEST(Encoding, TableHasEveryOpcodeOnceWithUniqueMnemonics) {
    const auto ops = all_opcodes();
    ASSERT_EQ(ops.size(), opcode_count());
    std::set<std::string_view> mnemonics;
    for (const auto* op : ops) {
        ASSERT_NE(op, nullptr);
        EXPECT_TRUE(mnemonics.insert(op->mnemonic).second) << op->mnemonic;
        EXPECT_EQ(find_mnemonic(op->mnemonic), op);
        EXPECT_NE(op->engines, 0u) << op->mnemonic;
    }
    EXPECT_EQ(find_opcode(0), nullptr);
    EXPECT_EQ(find_opcode(uint16_t(opcode_count() + 1)), nullptr);
}

TEST(Encoding, EveryOpcodeRoundTrips) {
    for (const auto* op : all_opcodes()) {
        SCOPED_TRACE(std::string(op->mnemonic));
        for (uint32_t seed = 0; seed < 3; ++seed) {
            const Instruction inst = filled(*op, seed);
            std::vector<uint8_t> bytes;
            encode(inst, bytes);
            ASSERT_EQ(bytes.size(), encoded_size(*op));
            Instruction back;
            ASSERT_EQ(decode(bytes.data(), bytes.size(), back), bytes.size());
            EXPECT_EQ(back, inst);
            std::vector<uint8_t> again;
            encode(back, again);
            EXPECT_EQ(again, bytes);
        }
    }
}

TEST(Encoding, EveryOpcodeSurvivesDisassemblyAndReassembly) {
    Container c = test::small_program();
    c.streams.clear();
    for (const auto* op : all_opcodes()) {
        InstructionStream s;
        for (uint32_t e = 0; e < engine_count(); ++e)
            if (op->runs_on(Engine(e))) {
                s.engine = Engine(e);
                break;
            }
        s.queue = 0;
        s.core = 0;
        bool merged = false;
        for (auto& existing : c.streams)
            if (existing.engine == s.engine) {
                existing.instructions.push_back(filled(*op, 1));
                merged = true;
            }
        if (!merged) {
            s.instructions.push_back(filled(*op, 1));
            c.streams.push_back(s);
        }
    }
    c.canonicalize();
    const auto bytes = write_container(c);
    const Assembly again = assemble(disassemble(read_container(bytes)), "all.s");
    EXPECT_EQ(write_container(again.container), bytes);
}

TEST(Encoding, NoneOperandIsAllZeroBytes) {
    Instruction inst;
    inst.opcode = Opcode::Activation;
    std::vector<uint8_t> bytes;
    encode(inst, bytes);
    Instruction back;
    decode(bytes.data(), bytes.size(), back);
    EXPECT_FALSE(back.ap(fields::Activation::bias).present());
    EXPECT_EQ(back.ap(fields::Activation::bias), AccessPattern{});
}

TEST(Encoding, DecodeRejectsDamage) {
    std::vector<uint8_t> bytes;
    encode(test::matmul(64, 64, 256), bytes);
    Instruction out;
    EXPECT_THROW(decode(bytes.data(), 10, out), DecodeError);
    EXPECT_THROW(decode(bytes.data(), bytes.size() - 1, out), DecodeError);
    auto bad = bytes;
    bad[16] = 9;  // memory space of the first operand
    try {
        decode(bad.data(), bad.size(), out);
        FAIL();
    } catch (const DecodeError& e) {
        EXPECT_STREQ(e.what(), "operand 'dst': unknown memory space 9");
    }
    bad = bytes;
    bad[bad.size() - 4] = 2;  // accumulate mode
    try {
        decode(bad.data(), bad.size(), out);
        FAIL();
    } catch (const DecodeError& e) {
        EXPECT_STREQ(e.what(), "operand 'acc': unknown accumulate mode 2");
    }
    bad = bytes;
    bad[2] = 0;  // length
    try {
        decode(bad.data(), bad.size(), out);
        FAIL();
    } catch (const DecodeError& e) {
        EXPECT_EQ(std::string(e.what()), "length field says " + std::to_string(bytes.size() & 0xff00) +
                                             " bytes, 'matmul' is " + std::to_string(bytes.size()));
    }
}

TEST(Encoding, FieldIndicesFollowTheTable) {
    const OpcodeInfo& mm = info(Opcode::Matmul);
    EXPECT_EQ(field_index(mm, "moving"), fields::Matmul::moving);
    EXPECT_EQ(mm.fields[fields::Matmul::acc].kind, FieldKind::Accumulate);
    EXPECT_EQ(info(Opcode::Activation).fields[fields::Activation::bias].optional, true);
    EXPECT_EQ(info(Opcode::DmaCopy).cost, CostClass::Dma);
}

}  // namespace
}  // namespace nsim::isa

namespace nsim::isa {
namespace {
TEST(Encoding, GeneratedFieldCountsMatchTheTable) {
    EXPECT_EQ(size_t(fields::Matmul::field_count), info(Opcode::Matmul).field_count);
    EXPECT_EQ(size_t(fields::Nop::field_count), 0u);
    EXPECT_EQ(size_t(fields::Activation::field_count), max_field_count());
}
}  // namespace
}  // namespace nsim::isa
