// A data-parallel program (a region per core) on the 8 cores of 4 trn1.32xlarge devices: a timing-only
// execution of a graph without collectives simulates the first device's two cores, and the others take
// its time (driver/runtime/replicated_devices.h) - the same time as simulating all eight, every core
// busy as its counterpart on the first device; a graph with a collective, a functional execution, a
// program whose devices do not run the same streams and one whose cores share a region run every core.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/engine_scheduler.h"
#include "engine_executor.h"
#include "isa/container_io.h"
#include "isa/text_format.h"
#include "replicated_devices.h"
#include "runtime.h"
#include "runtime_test_support.h"

namespace nsim {
namespace {

using runtime::NrtStatus;

constexpr const char* kFourDeviceInstance = "trn1.32xlarge";
constexpr uint32_t kCoresOnFourDevices = 8;

// Graph "compute": each core loads x, takes its exp and stores y, in its own region; graph "reduce":
// the cores all-reduce y. `function` of core c: its activation's (all "exp": the same streams).
std::string program_text(bool region_per_core, const std::function<std::string(uint32_t)>& function) {
    std::string text = fmt::format(".target v2\n.cores {}\n", kCoresOnFourDevices);
    if (region_per_core) text += ".meta device_region \"per core\"\n";
    text += ".tensor x input fp32 [128, 512] device 0x0\n.tensor y output fp32 [128, 512] device 0x40000\n"
            ".sem loaded 0\n.sem done 1\n.graph compute\n";
    for (uint32_t c = 0; c < kCoresOnFourDevices; ++c)
        text += fmt::format(
            ".core {}\n"
            "dma0 dma_copy dst=fp32 sbuf[0:128] +0 [[1,512]], src=fp32 dram:x +0 [[512,128],[1,512]], signal=loaded\n"
            "act activation dst=fp32 sbuf[0:128] +4096 [[1,512]], src=fp32 sbuf[0:128] +0 [[1,512]], func={}, scale=1, "
            "bias=none, reduce_op=none, reduce_dst=none, wait=loaded>=1, signal=done\n"
            "dma0 dma_copy dst=fp32 dram:y +0 [[512,128],[1,512]], src=fp32 sbuf[0:128] +4096 [[1,512]], wait=done>=1\n",
            c, function(c));
    text += ".graph reduce\n";
    for (uint32_t c = 0; c < kCoresOnFourDevices; ++c)
        text += fmt::format(".core {}\ndma0 all_reduce dst=fp32 dram:y +0 [[512,128],[1,512]], src=fp32 dram:y +0 "
                            "[[512,128],[1,512]], op=add, first_core=0, core_count={}\n",
                            c, kCoresOnFourDevices);
    return text;
}

isa::Container program(bool region_per_core = true, const std::function<std::string(uint32_t)>& function = [](uint32_t) {
    return std::string("exp");
}) {
    return isa::assemble(program_text(region_per_core, function), "replicated.s").container;
}

sim::core::ProgramPlacement placement_of(const isa::Container& p) {
    sim::core::ProgramPlacement placement;
    placement.cores = sim::core::consecutive_cores(test::shipped_configs().host(kFourDeviceInstance).chip, 0, kCoresOnFourDevices);
    placement.region_per_core = sim::core::has_region_per_core(p);
    return placement;
}

TEST(ReplicatedDevices, OnlyAGraphWithoutCollectivesWhoseDevicesRunTheSameStreamsIsCounted) {
    const isa::Container same = program();
    const uint32_t compute = *same.graph_index("compute"), reduce = *same.graph_index("reduce");
    EXPECT_EQ(runtime::cores_to_simulate(same, placement_of(same), compute), 2u);
    EXPECT_EQ(runtime::cores_to_simulate(same, placement_of(same), reduce), kCoresOnFourDevices) << "the all-reduce reaches every core";
    const isa::Container different = program(true, [](uint32_t c) { return c == 5 ? "tanh" : "exp"; });
    EXPECT_EQ(runtime::cores_to_simulate(different, placement_of(different), compute), kCoresOnFourDevices);
    const isa::Container shared = program(false);
    EXPECT_EQ(runtime::cores_to_simulate(shared, placement_of(shared), compute), kCoresOnFourDevices) << "cores share their device's region";
    sim::core::ProgramPlacement one_device = placement_of(same);
    one_device.cores.resize(2);
    EXPECT_EQ(runtime::cores_to_simulate(same, one_device, compute), 2u);
}

// A runtime on the four-device instance with program() loaded and its input x on the host.
struct LoadedOnFourDevices {
    test::TempHome home;
    std::unique_ptr<runtime::Runtime> rt;
    runtime::Model* model = nullptr;
    runtime::TensorSet in;

    // A method, not the constructor: gtest's ASSERTs return.
    void load(bool functional) {
        runtime::RuntimeOptions options;
        options.home = home.path();
        rt = std::make_unique<runtime::Runtime>(test::shipped_configs().host(kFourDeviceInstance), options);
        ASSERT_EQ(rt->init(), NrtStatus::Success) << rt->last_error();
        rt->set_executor(std::make_unique<runtime::EngineExecutor>(functional));
        ASSERT_EQ(rt->load(program(), 0, &model), NrtStatus::Success) << rt->last_error();
        runtime::Tensor* x = nullptr;
        ASSERT_EQ(rt->tensor_allocate(runtime::TensorPlacement::Host, 0, kCoresOnFourDevices * 128 * 512 * 4, "x", &x),
                  NrtStatus::Success);
        in.tensors = {{"x", x}};
    }
};

TEST(ReplicatedDevices, CountedDevicesTakeTheTimeSimulatingThemGives) {
    LoadedOnFourDevices loaded;
    loaded.load(false);
    ASSERT_NE(loaded.model, nullptr);
    runtime::Runtime& rt = *loaded.rt;
    runtime::Model* model = loaded.model;
    const runtime::TensorSet& in = loaded.in;

    ASSERT_EQ(rt.execute(model, "compute", in, nullptr), NrtStatus::Success) << rt.last_error();
    const runtime::ExecutionResult counted = model->last_result;
    EXPECT_EQ(counted.simulated_cores, 2u);
    ASSERT_EQ(counted.core_busy_s.size(), kCoresOnFourDevices);
    for (uint32_t c = 0; c < kCoresOnFourDevices; ++c) {
        EXPECT_GT(counted.core_busy_s[c], 0.0) << "core " << c;
        EXPECT_EQ(counted.core_busy_s[c], counted.core_busy_s[c % 2]) << "core " << c;
    }
    // The same execution with every core simulated.
    sim::core::ExecutionOptions every;
    every.graph = *model->program.graph_index("compute");
    sim::core::EngineScheduler all(rt.platform(), model->program, model->loaded.placement, every);
    const sim::core::RunStatistics stats = all.run();
    EXPECT_EQ(stats.cores, kCoresOnFourDevices);
    EXPECT_EQ(stats.time_s, counted.device_seconds);
    // Every core of the graph executed it for the whole execution (neuron-top's utilization).
    for (uint32_t c = 0; c < kCoresOnFourDevices; ++c) EXPECT_EQ(counted.core_busy_s[c], counted.device_seconds) << "core " << c;

    ASSERT_EQ(rt.execute(model, "reduce", in, nullptr), NrtStatus::Success) << rt.last_error();
    EXPECT_EQ(model->last_result.simulated_cores, kCoresOnFourDevices);
}

TEST(ReplicatedDevices, AFunctionalExecutionRunsEveryCore) {
    LoadedOnFourDevices loaded;
    loaded.load(true);
    ASSERT_NE(loaded.model, nullptr);
    runtime::Runtime& rt = *loaded.rt;
    runtime::Model* model = loaded.model;
    const runtime::TensorSet& in = loaded.in;
    ASSERT_EQ(rt.execute(model, "compute", in, nullptr), NrtStatus::Success) << rt.last_error();
    EXPECT_EQ(model->last_result.simulated_cores, kCoresOnFourDevices);
}

}  // namespace
}  // namespace nsim
