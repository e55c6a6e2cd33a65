// The nrt-style runtime on the emulated driver: init claims and resets cores, load validates and
// copies over PCIe, tensors, execute on the engines, status codes and messages, fault recovery.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "engine_executor.h"
#include "host_time.h"
#include "isa/encoding.h"
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
    sim::core::channel_storage(rt.platform(), 0, 1).read(region.offset + gamma->offset, stored.data(), stored.size());
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

// The example loaded on nc0 of a runtime, with its inputs written: x on the device, scores and probs
// in host memory.
struct ExampleRun {
    runtime::Model* model = nullptr;
    runtime::Tensor* probs = nullptr;
    runtime::TensorSet in, out;
};

void prepare_example(runtime::Runtime& rt, ExampleRun& run) {
    ASSERT_EQ(rt.load(test::example_program(), 0, &run.model), NrtStatus::Success) << rt.last_error();
    runtime::Tensor *x = nullptr, *scores = nullptr;
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Device, 0, 128 * 256 * 4, "x", &x), NrtStatus::Success);
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 128 * 128 * 4, "scores", &scores), NrtStatus::Success);
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 128 * 128 * 4, "probs", &run.probs), NrtStatus::Success);
    std::vector<float> xv(128 * 256), sv(128 * 128);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i % 17) * 0.25f;
    for (size_t i = 0; i < sv.size(); ++i) sv[i] = float(i % 13) * 0.1f - 0.5f;
    ASSERT_EQ(rt.tensor_write(x, xv.data(), 0, xv.size() * 4), NrtStatus::Success) << rt.last_error();
    ASSERT_EQ(rt.tensor_write(scores, sv.data(), 0, sv.size() * 4), NrtStatus::Success);
    run.in.tensors = {{"x", x}, {"scores", scores}};
    run.out.tensors = {{"probs", run.probs}};
}

// The runtime initialised with the engines wired to it, and the example ready to execute.
void start_example(runtime::Runtime& rt, ExampleRun& run) {
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    rt.set_executor(std::make_unique<runtime::EngineExecutor>());
    ASSERT_NO_FATAL_FAILURE(prepare_example(rt, run));
}

TEST(Runtime, ExecuteRunsTheModelOnTheEnginesAndReturnsItsOutputs) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    ExampleRun run;
    ASSERT_NO_FATAL_FAILURE(prepare_example(rt, run));
    runtime::Model* model = run.model;
    runtime::Tensor* probs = run.probs;
    runtime::TensorSet& in = run.in;
    runtime::TensorSet& out = run.out;

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

// neuron-top's utilization: the time the model executed on its core over the time since the core's
// previous sample, so that the runtime's own work and the application's time between executions count
// as idle: simulated time the host spent (here a simulated wait) and the application's own wall time
// (here a sleep), which the simulated clock does not see.
TEST(Runtime, UtilizationIsExecutionTimeOverTheTimeSinceTheCoresLastSample) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
    ExampleRun run;
    ASSERT_NO_FATAL_FAILURE(start_example(rt, run));
    const double first_wall_s = driver::wall_clock_now_s();
    ASSERT_EQ(rt.execute(run.model, run.in, &run.out), NrtStatus::Success) << rt.last_error();
    const double first_device_s = run.model->last_result.device_seconds;
    constexpr double kSimulatedWaitS = 0.25, kSleepS = 0.1;
    driver::host_time::advance_s(kSimulatedWaitS);
    std::this_thread::sleep_for(std::chrono::duration<double>(kSleepS));
    ASSERT_EQ(rt.execute(run.model, run.in, &run.out), NrtStatus::Success) << rt.last_error();
    const double application_wall_s = driver::wall_clock_now_s() - first_wall_s;   // at most this much

    const auto activity = rt.state().live_activity();
    ASSERT_EQ(activity.size(), 1u);
    ASSERT_EQ(activity[0].cores.size(), 1u);
    const auto& samples = activity[0].cores[0].samples;
    ASSERT_EQ(samples.size(), 2u);
    const auto& latencies = activity[0].executions.total_latency_s;
    ASSERT_EQ(latencies.size(), 2u);
    // The first execution: its device time over its whole call (copies, doorbell, completion).
    EXPECT_EQ(samples[0].busy_s, first_device_s);
    EXPECT_DOUBLE_EQ(samples[0].interval_s, latencies[0]);
    EXPECT_LT(samples[0].busy_s, samples[0].interval_s);
    // The second: the wait and the sleep before it are in its interval, not in its busy time.
    EXPECT_EQ(samples[1].busy_s, run.model->last_result.device_seconds);
    EXPECT_GE(samples[1].interval_s, kSimulatedWaitS + kSleepS + latencies[1]);
    EXPECT_LE(samples[1].interval_s, kSimulatedWaitS + latencies[1] + application_wall_s);
}

// The application's time is the wall time between runtime calls, not inside them (a call that makes
// another counts once).
TEST(ApplicationTime, CountsTheWallTimeBetweenCallsOnly) {
    using runtime::ApplicationTime;
    using Clock = std::chrono::steady_clock;
    ApplicationTime time;
    constexpr std::chrono::milliseconds kPause{50};
    Clock::time_point between;   // just before the first call returns
    {
        const ApplicationTime::Call load(time);
        std::this_thread::sleep_for(kPause);   // the runtime's own work
        const ApplicationTime::Call nested(time);
        between = Clock::now();
    }
    EXPECT_EQ(time.total_s(), 0.0);
    std::this_thread::sleep_for(kPause);   // the application's
    { const ApplicationTime::Call execute(time); }
    const double at_most = std::chrono::duration<double>(Clock::now() - between).count();
    EXPECT_GE(time.total_s(), 0.05);
    EXPECT_LE(time.total_s(), at_most);
    { const ApplicationTime::Call read(time); }   // straight after: almost nothing more
    EXPECT_LE(time.total_s(), std::chrono::duration<double>(Clock::now() - between).count());
}

// The device memory holding stream `stream`'s code, as the runtime's load placed it.
struct CodeInDeviceMemory {
    sim::SparseMemory* storage = nullptr;
    uint64_t offset = 0, bytes = 0;
};

CodeInDeviceMemory code_of_stream(runtime::Runtime& rt, const runtime::Model& model, uint32_t stream) {
    for (const sim::core::StreamCode& code : model.loaded.placement.code)
        if (code.stream == stream)
            return {&sim::core::channel_storage(rt.platform(), code.device, code.channel), code.offset, code.bytes};
    return {};
}

// The load moves a weight into device memory and lets go of the host copy (weights held once).
TEST(Runtime, AWeightIsHeldInDeviceMemoryOnlyAfterTheLoad) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
    ASSERT_EQ(rt.init(), NrtStatus::Success) << rt.last_error();
    const isa::Container file = isa::read_container(test::example_program());
    runtime::Model* model = nullptr;
    ASSERT_EQ(rt.load(test::example_program(), 0, &model), NrtStatus::Success) << rt.last_error();
    size_t weights = 0;
    for (size_t t = 0; t < file.tensors.size(); ++t) {
        const isa::TensorInfo& original = file.tensors[t];
        if (original.role != isa::TensorRole::Weight || original.data.empty()) continue;
        ++weights;
        EXPECT_TRUE(model->program.tensors[t].data.empty()) << original.name;
        for (const sim::core::DeviceRegion& copy : model->loaded.placement.device_regions) {
            const sim::SparseMemory& memory = sim::core::channel_storage(rt.platform(), copy.device, copy.channel);
            EXPECT_TRUE(memory.holds(copy.offset + original.offset, original.data.data(), original.data.size()))
                << original.name;
        }
    }
    EXPECT_EQ(weights, 1u);  // the example's gamma
}

TEST(Runtime, TheEnginesRunTheCodeTheLoadPutInDeviceMemory) {
    test::TempHome home;
    runtime::Runtime rt(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
    ExampleRun run;
    ASSERT_NO_FATAL_FAILURE(start_example(rt, run));
    runtime::Tensor* y = nullptr;
    ASSERT_EQ(rt.tensor_allocate(runtime::TensorPlacement::Host, 0, 128 * 256 * 4, "y", &y), NrtStatus::Success);
    run.out.tensors["y"] = y;
    auto execute_y = [&] {
        std::vector<float> values(128 * 256);
        EXPECT_EQ(rt.execute(run.model, run.in, &run.out), NrtStatus::Success) << rt.last_error();
        EXPECT_EQ(rt.tensor_read(y, values.data(), 0, values.size() * 4), NrtStatus::Success);
        return values;
    };
    const std::vector<float> scaled = execute_y();

    // The vector engine's stream, decoded from device memory, is the program's.
    const isa::Container& program = run.model->program;
    uint32_t dve = 0;
    while (dve < program.streams.size() && program.streams[dve].engine != isa::Engine::Dve) ++dve;
    ASSERT_LT(dve, program.streams.size());
    const CodeInDeviceMemory code = code_of_stream(rt, *run.model, dve);
    ASSERT_NE(code.storage, nullptr);
    std::vector<uint8_t> bytes(code.bytes);
    code.storage->read(code.offset, bytes.data(), bytes.size());
    std::vector<isa::Instruction> decoded;
    for (size_t at = 0; at < bytes.size();) {
        decoded.emplace_back();
        at += isa::decode(bytes.data() + at, bytes.size() - at, decoded.back());
    }
    ASSERT_EQ(decoded, program.streams[dve].instructions);

    // y = (x - mean) * rstd * gamma; with gamma's multiply turned into an add in device memory only,
    // the engines compute (x - mean) * rstd + gamma: what is in device memory runs.
    auto multiply = std::find_if(decoded.begin(), decoded.end(), [](const isa::Instruction& i) {
        return i.opcode == isa::Opcode::TensorTensor && i.alu(isa::fields::TensorTensor::op) == isa::AluOp::Multiply;
    });
    ASSERT_NE(multiply, decoded.end());
    multiply->set_enum(isa::fields::TensorTensor::op, isa::AluOp::Add);
    std::vector<uint8_t> changed;
    for (const isa::Instruction& i : decoded) isa::encode(i, changed);
    ASSERT_EQ(changed.size(), bytes.size());
    code.storage->write(code.offset, changed.data(), changed.size());
    const std::vector<float> shifted = execute_y();
    const float gamma[4] = {1.0f, 0.5f, 0.75f, 0.25f};  // the example's gamma: these four, repeated
    int differing = 0;
    for (size_t i = 0; i < scaled.size(); ++i) {
        const float g = gamma[(i % 256) % 4];
        ASSERT_NEAR(shifted[i] - g, scaled[i] / g, 1e-4f * (1 + std::fabs(scaled[i] / g))) << i;
        differing += shifted[i] != scaled[i];
    }
    EXPECT_GT(differing, 0);

    // Code that decodes but breaks the generation's limits is refused as the load refuses a program.
    multiply->sync.wait_semaphore = 999;
    changed.clear();
    for (const isa::Instruction& i : decoded) isa::encode(i, changed);
    code.storage->write(code.offset, changed.data(), changed.size());
    EXPECT_EQ(rt.execute(run.model, run.in, &run.out), NrtStatus::ExecCompletedWithErr);
    EXPECT_EQ(rt.last_error().rfind("NRT:nrt_execute the code in device memory differs from the loaded program and is invalid: ", 0), 0u)
        << rt.last_error();

    // Bytes that do not decode stop the execution with the stream and the address, in one line.
    std::vector<uint8_t> garbage(bytes.size(), 0xFF);
    code.storage->write(code.offset, garbage.data(), garbage.size());
    EXPECT_EQ(rt.execute(run.model, run.in, &run.out), NrtStatus::ExecCompletedWithErr);
    EXPECT_EQ(rt.last_error().rfind(fmt::format("NRT:nrt_execute core 0 queue dve: instruction 0 in device memory (device 0 "
                                                "channel 0 offset {:#x}) does not decode: ", code.offset), 0),
              0u)
        << rt.last_error();
    EXPECT_EQ(rt.last_error().find('\n'), std::string::npos);
}

// NEURON_RT_EXEC_TIMEOUT (simulated seconds) from the environment, in a child with its own host:
// the status and message of one execution of the example, or the runtime's refusal to start.
std::string execute_with_timeout(const test::TempHome& home, const std::string& timeout) {
    test::Child child([&home, timeout](std::string& message) {
        setenv("NEURON_RT_EXEC_TIMEOUT", timeout.c_str(), 1);
        std::unique_ptr<runtime::Runtime> made;
        try {
            made = std::make_unique<runtime::Runtime>(test::shipped_configs().host("inf2.xlarge"), options_for(home, "0"));
        } catch (const std::invalid_argument& e) {
            message = e.what();
            return 0;
        }
        runtime::Runtime& rt = *made;
        if (rt.init() != NrtStatus::Success) return 2;
        rt.set_executor(std::make_unique<runtime::EngineExecutor>());
        ExampleRun run;
        prepare_example(rt, run);
        const NrtStatus status = rt.execute(run.model, run.in, &run.out);
        message = status == NrtStatus::Success ? "ok" : fmt::format("{} {}", int(status), rt.last_error());
        return 0;
    });
    const std::string line = child.line();
    EXPECT_EQ(child.wait(), 0) << line;
    return line;
}

TEST(Runtime, AnExecutionLongerThanNeuronRtExecTimeoutFailsWithTimeout) {
    test::TempHome home;
    EXPECT_EQ(execute_with_timeout(home, "1"), "ok");  // 1 s: far above the example's microseconds
    const std::string timed_out = execute_with_timeout(home, "1e-9");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(timed_out, m, std::regex(R"((\d+) NRT:nrt_execute execution took (\S+) s of simulated time, )"
                                                          R"(over the 1e-09 s timeout \(NEURON_RT_EXEC_TIMEOUT\))")))
        << timed_out;
    EXPECT_EQ(std::stoi(m[1]), int(NrtStatus::Timeout));
    EXPECT_GT(std::stod(m[2]), 1e-9);
    EXPECT_LT(std::stod(m[2]), 1.0);
    EXPECT_EQ(execute_with_timeout(home, "soon"), "NEURON_RT_EXEC_TIMEOUT='soon' is not a number of seconds");
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
