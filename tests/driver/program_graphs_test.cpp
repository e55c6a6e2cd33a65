// A program of several graphs (isa/FORMAT.md §4.6) through the runtime: loaded once, each execution
// runs the graph it names over the tensors the graphs share, copies only that graph's inputs and
// outputs, and a graph the program does not have is one clear line.
#include <gtest/gtest.h>

#include <vector>

#include "engine_executor.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "runtime.h"
#include "runtime_test_support.h"

namespace nsim {
namespace {

using runtime::NrtStatus;

// "keep" copies x into a scratch tensor; "give" copies it back out into y. The second graph has no
// input, so its executions need none.
constexpr const char* kTwoGraphs = R"(
.target v2
.tensor x input fp32 [1, 4] device 0
.tensor kept scratch fp32 [1, 4] device 64
.tensor y output fp32 [1, 4] device 128
.graph keep
.core 0
dma0 dma_copy dst=fp32 dram:kept [[4, 1], [1, 4]], src=fp32 dram:x [[4, 1], [1, 4]]
.graph give
.core 0
dma0 dma_copy dst=fp32 dram:y [[4, 1], [1, 4]], src=fp32 dram:kept [[4, 1], [1, 4]]
)";

TEST(ProgramGraphs, EachExecutionRunsTheGraphItNamesOverSharedTensors) {
    const isa::Container program = isa::assemble(kTwoGraphs, "two_graphs.s").container;
    ASSERT_EQ(program.graphs, (std::vector<std::string>{"keep", "give"}));
    // The file keeps the graphs (format version 3) and reads back the same.
    const std::vector<uint8_t> bytes = isa::write_container(program);
    EXPECT_EQ(isa::read_layout(bytes.data(), bytes.size()).format_version, 3u);
    const isa::Container back = isa::read_container(bytes);
    EXPECT_EQ(back.graphs, program.graphs);
    ASSERT_EQ(back.streams.size(), 2u);
    EXPECT_EQ(back.streams[0].graph, 0u);
    EXPECT_EQ(back.streams[1].graph, 1u);
    EXPECT_EQ(isa::assemble(isa::disassemble(back), "again.s").container.graphs, program.graphs);

    test::TempHome home;
    runtime::RuntimeOptions options;
    options.home = home.path();
    options.visible_cores = "0";
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options);
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    rt.set_executor(std::make_unique<runtime::EngineExecutor>());
    runtime::Model* model = nullptr;
    ASSERT_EQ(rt.load(bytes, 0, &model), NrtStatus::Success) << rt.last_error();
    runtime::Tensor *x = nullptr, *y = nullptr;
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 16, "x", &x), NrtStatus::Success);
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 16, "y", &y), NrtStatus::Success);
    const std::vector<float> values = {1.5f, -2, 3, 0.25f};
    ASSERT_EQ(rt.tensor_write(x, values.data(), 0, 16), NrtStatus::Success);
    runtime::TensorSet in, out, none;
    in.tensors = {{"x", x}};
    out.tensors = {{"y", y}};

    ASSERT_EQ(rt.execute(model, "keep", in, &out), NrtStatus::Success) << rt.last_error();
    std::vector<float> got(4, 0.0f);
    ASSERT_EQ(rt.tensor_read(y, got.data(), 0, 16), NrtStatus::Success);
    EXPECT_EQ(got, std::vector<float>(4, 0.0f)) << "'keep' has no output: y is not copied back";
    ASSERT_EQ(rt.execute(model, "give", none, &out), NrtStatus::Success) << rt.last_error();
    ASSERT_EQ(rt.tensor_read(y, got.data(), 0, 16), NrtStatus::Success);
    EXPECT_EQ(got, values);

    EXPECT_EQ(rt.execute(model, "keep", none, &out), NrtStatus::ExecBadInput) << "'keep' reads x";
    EXPECT_EQ(rt.execute(model, "optimizer", in, &out), NrtStatus::Invalid);
    EXPECT_EQ(rt.last_error(), "NRT:nrt_execute graph 'optimizer' is not in " + model->name + " (its graphs: 'keep', 'give')");
}

TEST(ProgramGraphs, AStreamOfAGraphTheFileDoesNotNameIsRefused) {
    isa::Container program = isa::assemble(kTwoGraphs, "two_graphs.s").container;
    program.streams[1].graph = 2;
    EXPECT_THROW(
        {
            try {
                isa::read_container(isa::write_container(program));
            } catch (const isa::ContainerError& e) {
                EXPECT_NE(std::string(e.what()).find("graph 2 but the file names 2 graph(s)"), std::string::npos) << e.what();
                throw;
            }
        },
        isa::ContainerError);
}

}  // namespace
}  // namespace nsim
