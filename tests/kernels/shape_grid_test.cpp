// Kernels for every shape the hardware runs: BERT-base and BERT-large over a grid of batch sizes and
// sequence lengths, built timing-only (no weights) with the whole model on the device, on each
// NeuronCore generation. A build may refuse only because device memory cannot hold the model and its
// inputs and outputs; anything else (SBUF, PSUM, a tile the kernels do not cut) fails the test. And
// the size of the weight stream's DMA rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "device/bert_program.h"
#include "core/semantics/operand_bytes.h"
#include "device_run.h"
#include "isa/opcode_table.h"

namespace nsim::kernels {
namespace {

struct Shape {
    uint32_t batch, seq;
};

// The ends and the middle of batch 1..64 and seq 8..512; batch 64 x seq 512 (two million instructions
// per layer, gigabytes of program) is left out for the test's host time, batch 4 x 512 stands for it.
const Shape kShapes[] = {{1, 8}, {1, 128}, {1, 512}, {4, 512}, {16, 128}, {32, 128}, {64, 8}, {64, 128}};

struct Generation {
    std::string instance;
    device::Precision precision;
};

std::ostream& operator<<(std::ostream& os, const Generation& g) {
    return os << g.instance << " " << device::name_of(g.precision);
}

class ShapeGrid : public ::testing::TestWithParam<Generation> {};

TEST_P(ShapeGrid, EveryShapeBuildsOrDeviceMemoryRefusesIt) {
    const std::string instance = GetParam().instance;
    const config::HostSpec host = test::shipped_configs().host(instance);
    for (const char* model : {"bert-base", "bert-large"})
        for (const Shape& shape : kShapes) {
            device::BertProgramOptions o;
            o.config = *bert_preset_config(model);
            o.model_name = model;
            o.batch = shape.batch;
            o.seq = shape.seq;
            o.precision = GetParam().precision;
            o.embedding = device::EmbeddingPlacement::Device;
            o.device_memory_bytes = host.chip.memory.channel_bytes;
            try {
                const isa::Container program = device::build_bert_program(host.chip.core, o, nullptr);
                EXPECT_FALSE(program.streams.empty());
            } catch (const device::BuildError& e) {
                EXPECT_NE(std::string(e.what()).find("bytes of device memory"), std::string::npos)
                    << instance << " " << model << " batch " << shape.batch << " seq " << shape.seq << ": " << e.what();
            }
        }
}

// DMABW (hardware.md 3.1): a DMA needs >= 2 KiB per partition row, 4 KiB to saturate the engines. At
// batch 1 on trn1 the weight blocks of the FFN's first matrix (3072 columns) load 4 KiB rows, and no
// weight block loads more (a slot is 4 KiB per partition at most).
// bert-base batch 1 seq 128 on trn1, as the calibration rows run it.
isa::Container trn1_bert_base_b1() {
    const config::HostSpec host = test::shipped_configs().host("trn1.2xlarge");
    device::BertProgramOptions o;
    o.config = *bert_preset_config("bert-base");
    o.model_name = "bert-base";
    o.batch = 1;
    o.seq = 128;
    o.precision = device::Precision::MixedBf16;
    o.embedding = device::EmbeddingPlacement::Device;
    o.device_memory_bytes = host.chip.memory.channel_bytes;
    return device::build_bert_program(host.chip.core, o, nullptr);
}

// f(tensor, src, dst) for every DMA from a [rows, N] weight matrix into SBUF.
template <class F>
void for_each_weight_load(const isa::Container& program, uint64_t rows, F&& f) {
    for (const isa::InstructionStream& stream : program.streams)
        for (const isa::Instruction& inst : stream.instructions) {
            if (inst.opcode != isa::Opcode::DmaCopy) continue;
            const isa::AccessPattern& src = inst.ap(isa::fields::DmaCopy::src);
            const isa::AccessPattern& dst = inst.ap(isa::fields::DmaCopy::dst);
            if (src.space != isa::MemorySpace::Dram || dst.space != isa::MemorySpace::Sbuf) continue;
            const isa::TensorInfo& tensor = program.tensors.at(src.tensor);
            if (tensor.role != isa::TensorRole::Weight || tensor.shape.size() != 2 || tensor.shape[0] != rows) continue;
            f(tensor, src, dst);
        }
}

TEST(WeightStream, FfnWeightBlocksLoadFourKibPerPartitionRow) {
    const isa::Container program = trn1_bert_base_b1();
    std::map<std::string, uint64_t> widest;  // weight tensor -> most bytes one DMA moves per partition row
    for_each_weight_load(program, 768, [&](const isa::TensorInfo& tensor, const isa::AccessPattern&, const isa::AccessPattern& dst) {
        uint64_t& w = widest[tensor.name];
        w = std::max<uint64_t>(w, dst.free_elements() * isa::size_in_bytes(dst.dtype));
    });
    ASSERT_TRUE(widest.count("layer0.intermediate"));
    EXPECT_EQ(widest["layer0.intermediate"], 4096u);
    for (const auto& [name, bytes] : widest) EXPECT_LE(bytes, 4096u) << name;
}

// The hidden-wide matrices (768 columns, 1.5 KiB of bf16 per row) are stored with each partition's
// k-tiles adjacent (DramMatrix::interleave), so a block of two k-tiles (3 KiB, what a 4 KiB slot
// holds) is one contiguous run per partition row: one descriptor each, not two of 1.5 KiB.
TEST(WeightStream, HiddenWideBlocksLoadTwoKTilesAsOneRunPerPartitionRow) {
    const isa::Container program = trn1_bert_base_b1();
    size_t loads = 0;
    for_each_weight_load(program, 768, [&](const isa::TensorInfo& tensor, const isa::AccessPattern& src, const isa::AccessPattern& dst) {
        if (tensor.name != "layer0.query" && tensor.name != "layer0.value") return;
        ++loads;
        EXPECT_EQ(sim::core::contiguous_runs(src), src.partition_count) << tensor.name;
        EXPECT_EQ(src.free_elements() * isa::size_in_bytes(src.dtype), 3072u) << tensor.name;
        EXPECT_EQ(dst.free_elements(), src.free_elements());
    });
    EXPECT_EQ(loads, 2u * 3 * 16) << "query and value: 3 blocks of 2 k-tiles each, each split over 16 queues";
}

// NeuronCore-v1's 4 PSUM banks bound a weight block at 256 columns (2 of the ring's 4 banks, 4 token
// tiles of the seed's batch 4 x seq 128), which a slot holds 2 k-tiles of. The weights are laid out
// in panels that wide (DramMatrix::panel_columns), so each block is one 1 KiB run per partition row:
// one descriptor each, not one per k-tile (512 B each) as in a layout with whole rows of the matrix.
TEST(WeightStream, NcV1BlocksLoadOneRunPerPartitionRow) {
    const config::HostSpec host = test::shipped_configs().host("inf1.2xlarge");
    device::BertProgramOptions o;  // one core of the inf1 seed
    o.config = *bert_preset_config("bert-large");
    o.model_name = "bert-large";
    o.batch = 4;
    o.seq = 128;
    o.precision = device::Precision::Mixed;
    const isa::Container program = device::build_bert_program(host.chip.core, o, nullptr);
    std::map<std::string, size_t> loads;
    for_each_weight_load(program, 1024, [&](const isa::TensorInfo& tensor, const isa::AccessPattern& src, const isa::AccessPattern& dst) {
        if (tensor.name.rfind("layer0.", 0) != 0) return;
        ++loads[tensor.name];
        EXPECT_EQ(sim::core::contiguous_runs(src), src.partition_count) << tensor.name;
        EXPECT_EQ(src.free_elements() * isa::size_in_bytes(src.dtype), 1024u) << tensor.name;
        EXPECT_EQ(dst.free_elements(), src.free_elements());
    });
    // 1024 x 1024: 4 panels x 4 blocks of 2 k-tiles, each split over the 3 DMA engines' queues.
    EXPECT_EQ(loads["layer0.query"], 4u * 4 * 3);
    EXPECT_EQ(loads["layer0.value"], 4u * 4 * 3);
    EXPECT_EQ(loads["layer0.intermediate"], 16u * 4 * 3);
}

// fp32, the widest activations, on NeuronCore-v2 and -v3: what fits there fits in every dtype. On
// NeuronCore-v1 (96 KiB of SBUF per partition) bf16, what its compiler casts fp32 models to by default:
// with fp32 activations (fp32, mixed) one sequence of 512 tokens does not fit yet - the residual
// stream and layernorm rows in fp32 beside a 512-key attention need tiling within a sequence.
INSTANTIATE_TEST_SUITE_P(Kernels, ShapeGrid,
                         ::testing::Values(Generation{"inf1.2xlarge", device::Precision::Bf16},
                                           Generation{"trn1.2xlarge", device::Precision::Fp32},
                                           Generation{"trn2.48xlarge", device::Precision::Fp32}),
                         [](const ::testing::TestParamInfo<Generation>& info) {
                             std::string name = info.param.instance;
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace nsim::kernels
