// dma_gather against a plain reference: dst row r = table row indices[r], converted to dst's dtype;
// an index outside the table fails with one message naming it.
#include <random>
#include <string>

#include "semantics_test_support.h"

namespace nsim::sim::core::test {
namespace {

namespace G = isa::fields::DmaGather;

struct GatherCase {
    Machine m;
    AccessPattern table = tensor(MemorySpace::Dram, DType::Fp32, 1, 10, 8, 0, {{1, 6}});  // 10 rows of 6, stride 8
    std::vector<float> rows;

    GatherCase() {
        std::mt19937 rng(19);
        rows = random_values(rng, DType::Fp32, 10 * 6, -3, 3);
        store_rows(m, table, rows);
    }

    // Indices as int32 in DRAM tensor 2, one per row.
    isa::Instruction gather(const std::vector<int32_t>& indices, const AccessPattern& dst) {
        const AccessPattern index = tensor(MemorySpace::Dram, DType::Int32, 2, uint32_t(indices.size()), 1, 0, {{1, 1}});
        for (size_t r = 0; r < indices.size(); ++r)
            m.dram.write(address_of(m, index, uint32_t(r), {0}), reinterpret_cast<const uint8_t*>(&indices[r]), 4);
        isa::Instruction inst = make(isa::Opcode::DmaGather);
        inst.set(G::dst, dst).set(G::table, table).set(G::indices, index);
        return inst;
    }
};

TEST(DmaGather, EachRowIsTheIndexedTableRowInTheDestinationsDtype) {
    GatherCase c;
    const std::vector<int32_t> indices = {9, 0, 3, 3, 7};
    const AccessPattern dst = sbuf_tile(DType::Bf16, 2, 5, 64, 6);
    execute(c.gather(indices, dst), c.m.spaces());
    const std::vector<float> got = load_rows(c.m, dst);
    for (size_t r = 0; r < indices.size(); ++r)
        for (size_t j = 0; j < 6; ++j)
            EXPECT_EQ(got[r * 6 + j], dtype::round_to(DType::Bf16, c.rows[size_t(indices[r]) * 6 + j])) << r << "," << j;
}

TEST(DmaGather, AnIndexOutsideTheTableIsAnErrorNamingIt) {
    for (int32_t bad : {10, -1}) {
        GatherCase c;
        try {
            execute(c.gather({1, bad, 2}, sbuf_tile(DType::Fp32, 0, 3, 0, 6)), c.m.spaces());
            ADD_FAILURE() << "index " << bad << " was accepted";
        } catch (const SemanticsError& e) {
            EXPECT_EQ(std::string(e.what()), "dma_gather: index " + std::to_string(bad) +
                                                 " (element 1 of the indices) is outside the table's 10 rows");
        }
    }
}

TEST(DmaGather, RowsOfAnotherWidthAreAnError) {
    GatherCase c;
    EXPECT_THROW(execute(c.gather({1, 2}, sbuf_tile(DType::Fp32, 0, 2, 0, 5)), c.m.spaces()), SemanticsError);
}

}  // namespace
}  // namespace nsim::sim::core::test
