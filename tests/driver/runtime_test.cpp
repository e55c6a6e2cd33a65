// The nrt-style runtime on the emulated driver: init claims and resets cores, load validates and
// copies over PCIe, tensors, execute on the engines, status codes and messages, fault recovery.
#include <gtest/gtest.h>

#include <numeric>

#include "engine_executor.h"
#include "runtime.h"
#include "runtime_test_support.h"

namespace nsim {
namespace {

using runtime::NrtStatus;

runtime::RuntimeOptions options_for(const test::TempHome& home, const std::string& visible = "") {
    runtime::RuntimeOptions options;
    options.home = home.path();
    if (!visible.empty()) options.visible_cores = visible;
    return options;
}

TEST(Runtime, LoadValidatesAndCopiesWeightsAndCodeOverPcie) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "1"));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    EXPECT_EQ(rt.visible_vnc_count(), 1u);
    runtime::Model* model = nullptr;
    const auto neff = test::example_program();
    ASSERT_EQ(rt.load(neff, -1, &model), NrtStatus::Success) << rt.last_error();
    EXPECT_EQ(model->loaded.placement.cores.at(0).core, 1u);
    EXPECT_GT(model->load_time_s, 0.0);
    EXPECT_GT(model->dma_bytes, 0u);
    // The region sits in the HBM next to nc1 (channel 1 of inf2's two), and gamma's bytes are there
    // at the region plus its offset.
    ASSERT_EQ(model->loaded.placement.device_regions.size(), 1u);
    const sim::core::DeviceRegion& region = model->loaded.placement.device_regions[0];
    EXPECT_EQ(region.channel, 1u);
    const isa::TensorInfo* gamma = nullptr;
    for (const auto& t : model->program.tensors)
        if (t.name == "gamma") gamma = &t;
    ASSERT_NE(gamma, nullptr);
    std::vector<uint8_t> stored(gamma->data.size());
    rt.platform().devices()[0]->memory_channels()[1]->storage().read(region.offset + gamma->offset, stored.data(),
                                                                      stored.size());
    EXPECT_EQ(stored, gamma->data);
    // The host state shows the model and the core's load count.
    const auto record = rt.state().read_process(getpid());
    ASSERT_TRUE(record);
    ASSERT_EQ(record->models.size(), 1u);
    EXPECT_EQ(record->models[0].name, "layernorm-softmax");
    EXPECT_EQ(test::read_file(rt.state().sysfs_dir() / "class/neuron_device/neuron0/neuron_core1/stats/other_info/model_load_count"), "1\n");
    rt.close();
    EXPECT_FALSE(rt.state().read_process(getpid()).has_value());
    EXPECT_EQ(rt.load(neff, -1, &model), NrtStatus::Closed);
}

TEST(Runtime, ExecuteRunsTheModelOnTheEnginesAndReturnsItsOutputs) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    runtime::Model* model = nullptr;
    ASSERT_EQ(rt.load(test::example_program(), 0, &model), NrtStatus::Success) << rt.last_error();
    runtime::Tensor *x = nullptr, *scores = nullptr, *probs = nullptr;
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Device, 0, 128 * 256 * 4, "x", &x), NrtStatus::Success);
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 128 * 128 * 4, "scores", &scores), NrtStatus::Success);
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 128 * 128 * 4, "probs", &probs), NrtStatus::Success);
    std::vector<float> xv(128 * 256), sv(128 * 128);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i % 17) * 0.25f;
    for (size_t i = 0; i < sv.size(); ++i) sv[i] = float(i % 13) * 0.1f - 0.5f;
    ASSERT_EQ(rt.tensor_write(x, xv.data(), 0, xv.size() * 4), NrtStatus::Success) << rt.last_error();
    ASSERT_EQ(rt.tensor_write(scores, sv.data(), 0, sv.size() * 4), NrtStatus::Success);
    runtime::TensorSet in, out;
    in.tensors = {{"x", x}, {"scores", scores}};
    out.tensors = {{"probs", probs}};

    EXPECT_EQ(rt.execute(model, in, &out), NrtStatus::Failure);  // the seam: no executor yet
    EXPECT_NE(rt.last_error().find("no instruction executor"), std::string::npos);
    rt.set_executor(std::make_unique<runtime::EngineExecutor>());
    ASSERT_EQ(rt.execute(model, in, &out), NrtStatus::Success) << rt.last_error();
    std::vector<float> pv(128 * 128);
    ASSERT_EQ(rt.tensor_read(probs, pv.data(), 0, pv.size() * 4), NrtStatus::Success);
    // Reference property of the example's masked softmax: over the kept key columns (0-100) each row
    // sums to one; the masked columns hold the mask's -10000 (the program selects it where exp is 0).
    for (int row = 0; row < 128; ++row) {
        const double sum = std::accumulate(pv.begin() + row * 128, pv.begin() + row * 128 + 101, 0.0);
        ASSERT_NEAR(sum, 1.0, 1e-3) << "row " << row;
        for (int col = 101; col < 128; ++col) ASSERT_EQ(pv[row * 128 + col], -10000.0f) << row << "," << col;
    }
    EXPECT_EQ(test::read_file(rt.state().sysfs_dir() / "class/neuron_device/neuron0/neuron_core0/stats/other_info/inference_count"), "1\n");
    const auto activity = rt.state().live_activity();
    ASSERT_EQ(activity.size(), 1u);
    ASSERT_FALSE(activity[0].cores.empty());
    EXPECT_GT(activity[0].cores[0].samples.back().busy_s, 0.0);
    runtime::TensorSet missing;
    EXPECT_EQ(rt.execute(model, missing, &out), NrtStatus::ExecBadInput);
    EXPECT_EQ(rt.last_error(), "NRT:nrt_execute input tensor 'x' is missing");
}

TEST(Runtime, DeviceTensorRoundTripAndBounds) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("trn1.2xlarge"), options_for(home));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    EXPECT_EQ(rt.visible_vnc_count(), 2u);
    runtime::Tensor* t = nullptr;
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Device, 1, 100000, "t", &t), NrtStatus::Success);
    std::vector<uint8_t> data(100000);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 31 + 7);
    ASSERT_EQ(rt.tensor_write(t, data.data(), 0, data.size()), NrtStatus::Success);
    std::vector<uint8_t> back(data.size());
    ASSERT_EQ(rt.tensor_read(t, back.data(), 0, back.size()), NrtStatus::Success);
    EXPECT_EQ(back, data);
    EXPECT_EQ(rt.tensor_write(t, data.data(), 1, data.size()), NrtStatus::Invalid);
    EXPECT_EQ(rt.last_error(), "NRT:nrt_tensor_write 100000 bytes at offset 1 do not fit tensor 't' (100000 bytes)");
    EXPECT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Device, 5, 16, "u", &t), NrtStatus::Invalid);
}

TEST(Runtime, BadContainersAreRejectedWithTheirStatus) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf1.xlarge"), options_for(home));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    runtime::Model* model = nullptr;
    std::vector<uint8_t> junk(100, 0x5a);
    EXPECT_EQ(rt.load(junk, -1, &model), NrtStatus::Invalid);
    EXPECT_EQ(rt.last_error().rfind("NRT:nrt_load invalid model: ", 0), 0u) << rt.last_error();
    EXPECT_EQ(rt.load(test::example_program(), -1, &model), NrtStatus::UnsupportedNeffVersion);
    EXPECT_EQ(rt.last_error(), "NRT:nrt_load the model is for NeuronCore-v2, but inf1.xlarge has NeuronCore-v1");
}

TEST(Runtime, InitFailsClearlyWhenTheModuleIsNotLoaded) {
    test::TempHome home;
    const config::HostSpec spec = test::shipped_configs().host("inf2.xlarge");
    runtime::Runtime rt(spec, options_for(home));
    ASSERT_TRUE(rt.driver().modprobe().empty());
    rt.driver().rmmod();
    EXPECT_EQ(rt.init(), NrtStatus::Failure);
    EXPECT_EQ(rt.last_error().rfind("NRT:nrt_init Unable to determine Neuron Driver version.", 0), 0u) << rt.last_error();
}

TEST(Runtime, VisibleCoresOutsideTheInstanceAreInvalid) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "1-2"));
    EXPECT_EQ(rt.init(), NrtStatus::Invalid);
    EXPECT_EQ(rt.last_error(), "NRT:nrt_init NEURON_RT_VISIBLE_CORES='1-2' names nc2, but the instance has 2 NeuronCores (nc0-nc1)");
}

TEST(RuntimeFaults, FailDmaWaitFailsTheLoadWithTheDmaTimeoutThenLoadsAgain) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    rt.driver().faults().set(driver::Fault::FailDmaWait, 1);
    runtime::Model* model = nullptr;
    EXPECT_EQ(rt.load(test::example_program(), -1, &model), NrtStatus::Timeout);
    EXPECT_EQ(rt.last_error().rfind("NRT:nrt_load DMA completion timeout on nd00 for eng 15 q0 desc count", 0), 0u) << rt.last_error();
    EXPECT_EQ(rt.load(test::example_program(), -1, &model), NrtStatus::Success) << rt.last_error();
}

TEST(RuntimeFaults, FailMcAllocFailsTheLoadWithTheDriversOomThenLoadsAgain) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("trn1.2xlarge"), options_for(home, "1"));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    rt.driver().faults().set(driver::Fault::FailMcAlloc, 1);
    runtime::Model* model = nullptr;
    EXPECT_EQ(rt.load(test::example_program(), -1, &model), NrtStatus::Resource);
    // The model's memory comes from the HBM next to nc1: channel 1's pool.
    EXPECT_EQ(rt.last_error().rfind("NRT:nrt_load neuron:mc_alloc: device mempool [1:0] total", 0), 0u) << rt.last_error();
    EXPECT_EQ(rt.load(test::example_program(), -1, &model), NrtStatus::Success) << rt.last_error();
}

}  // namespace
}  // namespace nsim
