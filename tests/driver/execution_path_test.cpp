// One execution path: every nrt_execute rings the doorbell of the model's first NeuronCore through the
// driver, the device's sequencer runs the loaded program and writes a notification into the core's
// notification queue in host memory, and the runtime waits for it. Both ends are observed: the
// driver's queue counts doorbells and completions, the device counts doorbells answered and
// notifications written. And a program assembled with neuron-as goes the same way.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/command_runner.h"
#include "engine_executor.h"
#include "fault_switches.h"
#include "runtime.h"
#include "runtime_test_support.h"

namespace nsim {
namespace {

using runtime::NrtStatus;

// The layernorm/softmax example loaded on nc0 of inf2.xlarge, its tensors in host memory.
struct LoadedExample {
    test::TempHome home;
    runtime::Runtime rt;
    runtime::Model* model = nullptr;
    runtime::TensorSet in, out;

    LoadedExample() : rt(test::shipped_configs().host("inf2.xlarge"), options()) {
        rt.set_executor(std::make_unique<runtime::EngineExecutor>(false));
    }
    runtime::RuntimeOptions options() const {
        runtime::RuntimeOptions o;
        o.home = home.path();
        o.visible_cores = "0";
        return o;
    }
    void load() {
        ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
        ASSERT_EQ(rt.load(test::example_program(), 0, &model), NrtStatus::Success) << rt.last_error();
        for (const isa::TensorInfo& t : model->program.tensors) {
            if (t.role != isa::TensorRole::Input && t.role != isa::TensorRole::Output) continue;
            runtime::Tensor* tensor = nullptr;
            ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, t.size_bytes(), t.name, &tensor), NrtStatus::Success);
            (t.role == isa::TensorRole::Input ? in : out).tensors[t.name] = tensor;
        }
    }
    NrtStatus execute() { return rt.execute(model, in, &out); }
};

TEST(ExecutionPath, EveryExecutionRingsTheDoorbellAndWaitsForTheDevicesNotification) {
    LoadedExample example;
    ASSERT_NO_FATAL_FAILURE(example.load());
    EXPECT_EQ(example.rt.driver().notification_queue(0, 0), nullptr);   // set up on first use
    sim::ExecutionDoorbells* device = example.rt.platform().devices().at(0)->doorbells();
    ASSERT_NE(device, nullptr);
    for (uint64_t n = 1; n <= 3; ++n) {
        ASSERT_EQ(example.execute(), NrtStatus::Success) << example.rt.last_error();
        const driver::NotificationQueue* queue = example.rt.driver().notification_queue(0, 0);
        ASSERT_NE(queue, nullptr);
        EXPECT_EQ(queue->doorbells(), n);        // the driver rang ...
        EXPECT_EQ(device->doorbells(0), n);      // ... the device answered ...
        EXPECT_EQ(device->notifications(0), n);  // ... wrote its notification ...
        EXPECT_EQ(queue->completions(), n);      // ... and the driver saw it
    }
    EXPECT_EQ(device->doorbells(1), 0u);         // nc1 runs nothing of this process
}

TEST(ExecutionPath, ADoorbellOnACoreWithNothingLoadedIsAnsweredSo) {
    LoadedExample example;
    ASSERT_NO_FATAL_FAILURE(example.load());
    const driver::NotificationQueue::Completion nothing = example.rt.driver().execute(0, 1, 1.0);
    EXPECT_TRUE(nothing.arrived);
    EXPECT_EQ(nothing.status, sim::ExecutionDoorbells::kNothingLoaded);
    // Unloaded, the model's core answers the same way: the runtime says so.
    runtime::Model* model = example.model;
    ASSERT_EQ(example.rt.unload(model), NrtStatus::Success);
    EXPECT_EQ(example.rt.driver().execute(0, 0, 1.0).status, sim::ExecutionDoorbells::kNothingLoaded);
}

TEST(ExecutionPath, AFailedMapOfTheNotificationQueueFailsTheExecutionInOneLine) {
    LoadedExample example;
    ASSERT_NO_FATAL_FAILURE(example.load());
    driver::FaultSwitches(example.rt.state()).set(driver::Fault::FailNcMmap, 1);
    EXPECT_EQ(example.execute(), NrtStatus::Failure);
    EXPECT_EQ(example.rt.last_error(), "NRT:nrt_execute nd0: mmap of the nc0 notification queue failed");
    const auto log = example.rt.state().kernel_log();
    EXPECT_TRUE(std::any_of(log.begin(), log.end(), [](const std::string& line) {
        return line.find("mmap of the nc0 notification queue failed") != std::string::npos;
    }));
    EXPECT_EQ(example.execute(), NrtStatus::Success) << example.rt.last_error();  // the switch fired once
}

TEST(ExecutionPath, AnAssembledProgramIsLoadedThroughTheDriverAndReportsItsLoad) {
    test::TempHome home;
    const std::string path = std::string(NSIM_CONFIG_DIR) + "/../isa/examples/layernorm_softmax.s";
    const std::string bin = (home.path() / "example.bin").string();
    const std::string env = "NEURON_SIM_HOME=" + home.path().string();
    ASSERT_EQ(test::run_command(test::tool_path("neuron-as") + " " + path + " -o " + bin).exit_code, 0);
    const auto r = test::run_command(test::tool_path("neuron-sim") + " -i inf2.xlarge run " + bin + " --iterations 3", env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Named as the program it is, not as a BERT model with an embedding.
    EXPECT_NE(r.out.find("program layernorm-softmax on inf2.xlarge: 1 NeuronCore"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("embedding"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("inferences/s"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("bytes of code and tensors over PCIe"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("executions                  3"), std::string::npos) << r.out;
    const auto json = test::run_command(test::tool_path("neuron-sim") + " -i inf2.xlarge run " + bin + " --json", env);
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_GT(j["load_time_ms"].get<double>(), 0.0);
    EXPECT_GT(j["load_pcie_bytes"].get<uint64_t>(), 4096u);   // code and gamma at least
}

}  // namespace
}  // namespace nsim
