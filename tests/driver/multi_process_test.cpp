// Several processes on one simulated host: disjoint cores both work, the same core gets the runtime's
// error naming the holder, a process that dies leaves no claim, and a device left INVALID by a fault
// fails every process's init until rmmod + modprobe. Each process (a forked child) elaborates its
// own simulated hardware, as separate neuron-sim runs do.
#include <functional>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core_selection.h"
#include "runtime.h"
#include "runtime_test_support.h"

namespace nsim {
namespace {

using runtime::NrtStatus;

// What a child does once its runtime is up: sets the line it reports; false when it failed (the
// child then reports the runtime's error).
using ChildStep = std::function<bool(runtime::Runtime&, std::string& line)>;

// A child that inits a runtime on `instance` with `options` (after `environment` has set what the
// runtime reads), runs `step`, reports its line ("ok" without a step) or the error, and when `hold`
// keeps its cores and memory until released.
test::Child runtime_child(const test::TempHome& home, const std::string& instance, runtime::RuntimeOptions options,
                          bool hold, ChildStep step = {}, std::function<void()> environment = {}) {
    return test::Child([&home, instance, options, hold, step, environment](std::string& message) mutable {
        if (environment) environment();
        options.home = home.path();
        runtime::Runtime rt(test::shipped_configs().host(instance), options);
        std::string line = "ok";
        const bool ok = rt.init() == NrtStatus::Success && (!step || step(rt, line));
        test::Child::send(ok ? line : rt.last_error());
        if (hold && ok) test::Child::wait_for_parent();
        message = "";
        return ok ? 0 : 1;
    });
}

runtime::RuntimeOptions on_cores(const std::string& cores) {
    runtime::RuntimeOptions options;
    options.visible_cores = cores;
    return options;
}

// A child that holds `cores` until released (when `hold`).
test::Child holder(const test::TempHome& home, const std::string& instance, const std::string& cores, bool hold) {
    return runtime_child(home, instance, on_cores(cores), hold);
}

TEST(MultiProcess, DisjointCoresBothWorkAndTheSameCoreNamesTheHolder) {
    test::TempHome home;
    test::Child a = holder(home, "inf2.xlarge", "0", true);
    ASSERT_EQ(a.line(), "ok");
    test::Child b = holder(home, "inf2.xlarge", "1", true);
    EXPECT_EQ(b.line(), "ok");
    test::Child c = holder(home, "inf2.xlarge", "0", false);
    const std::string error = c.line();
    EXPECT_EQ(c.wait(), 1);
    EXPECT_EQ(error.rfind("NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:nc0-nc0 Available:0 "
                          "(nc0 is in use by PID " + std::to_string(a.pid()), 0), 0u) << error;
    a.release();
    EXPECT_EQ(a.wait(), 0);
    // Once the holder has closed, the core is free again.
    test::Child d = holder(home, "inf2.xlarge", "0", false);
    EXPECT_EQ(d.line(), "ok");
    EXPECT_EQ(d.wait(), 0);
    b.release();
    EXPECT_EQ(b.wait(), 0);
}

// The child's one line, once it has exited with `code`.
std::string outcome(test::Child& child, int code) {
    const std::string line = child.line();
    EXPECT_EQ(child.wait(), code) << line;
    return line;
}

// A child whose runtime holds nc`core` of inf1.xlarge and allocates a device tensor of `bytes` next to
// it; reports "ok" or the error, and holds the tensor until released.
test::Child allocator(const test::TempHome& home, const std::string& core, uint64_t bytes) {
    return runtime_child(home, "inf1.xlarge", on_cores(core), true, [bytes](runtime::Runtime& rt, std::string&) {
        runtime::Tensor* tensor = nullptr;
        return rt.tensor_allocate(runtime::TensorPlacement::Device, -1, bytes, "t", &tensor) == NrtStatus::Success;
    });
}

TEST(MultiProcess, DeviceMemoryIsSharedByEveryProcessAsTheDriversPoolsAre) {
    // nc0 and nc1 of inf1 both allocate from DDR channel 0 (4 GiB): 3 GiB in one process leave too
    // little for 2 GiB in another, which gets the driver's OOM counting the first one's memory; once
    // the first has exited the same allocation succeeds.
    test::TempHome home;
    const auto& chip = test::shipped_configs().chip("inferentia");
    ASSERT_EQ(chip.memory_channel_of_core(0), chip.memory_channel_of_core(1));
    const uint64_t gib = uint64_t(1) << 30, total = chip.memory.channel_bytes - chip.driver.memory_carveout_bytes;
    test::Child a = allocator(home, "0", 3 * gib);
    ASSERT_EQ(a.line(), "ok");
    test::Child b = allocator(home, "1", 2 * gib);
    const std::string error = outcome(b, 1);
    EXPECT_EQ(error, fmt::format("NRT:nrt_tensor_allocate neuron:mc_alloc: device mempool [0:0] total {} occupied {} "
                                 "needed {} available {}", total, 3 * gib, 2 * gib, total - 3 * gib));
    test::Child c = allocator(home, "2", 2 * gib);  // nc2 allocates from channel 1
    EXPECT_EQ(c.line(), "ok");
    a.release();
    EXPECT_EQ(a.wait(), 0);
    test::Child d = allocator(home, "1", 2 * gib);
    EXPECT_EQ(d.line(), "ok");
    d.release();
    EXPECT_EQ(d.wait(), 0);
    c.release();
    EXPECT_EQ(c.wait(), 0);
}

// A child whose runtime takes NEURON_RT_NUM_CORES=`count` from its environment; reports the cores it
// claimed or the error, and holds them until released.
test::Child counted(const test::TempHome& home, const std::string& count, bool hold) {
    return runtime_child(
        home, "inf2.xlarge", {}, hold,
        [](runtime::Runtime& rt, std::string& line) {
            line = runtime::describe_cores(rt.claimed_cores());
            return true;
        },
        [count] { setenv("NEURON_RT_NUM_CORES", count.c_str(), 1); });
}

TEST(MultiProcess, NumCoresClaimsThatManyFreeCores) {
    test::TempHome home;
    test::Child first = holder(home, "inf2.xlarge", "0", true);
    ASSERT_EQ(first.line(), "ok");
    test::Child second = counted(home, "1", true);  // nc0 is taken: the free one
    EXPECT_EQ(second.line(), "nc1-nc1");
    test::Child third = counted(home, "1", false);
    EXPECT_EQ(outcome(third, 1), "NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:1 NeuronCores Available:0");
    first.release();
    second.release();
    EXPECT_EQ(first.wait(), 0);
    EXPECT_EQ(second.wait(), 0);
    test::Child all = counted(home, "2", false);
    EXPECT_EQ(outcome(all, 0), "nc0-nc1");
}

TEST(MultiProcess, NumCoresZeroMeansEveryCoreAndOtherValuesAreRefused) {
    test::TempHome home;
    // 0 is the runtime's default, "all" (driver.md 12).
    test::Child zero = counted(home, "0", false);
    EXPECT_EQ(outcome(zero, 0), "nc0-nc1");
    test::Child too_many = counted(home, "3", false);
    EXPECT_EQ(outcome(too_many, 1), "NRT:nrt_init NEURON_RT_NUM_CORES=3 exceeds the instance's 2 NeuronCores");
    for (const std::string bad : {"two", "-1", "1.5", "99999999999"}) {
        test::Child child = counted(home, bad, false);
        EXPECT_EQ(outcome(child, 1), "NRT:nrt_init NEURON_RT_NUM_CORES='" + bad + "' is not a number of NeuronCores");
    }
}

TEST(MultiProcess, AProcessThatDiesLeavesNoStaleClaim) {
    test::TempHome home;
    test::Child crashed([&home](std::string&) {
        runtime::RuntimeOptions options;
        options.home = home.path();
        options.visible_cores = "0";
        auto* rt = new runtime::Runtime(test::shipped_configs().host("inf1.xlarge"), options);  // never closed
        const bool ok = rt->init() == NrtStatus::Success;
        test::Child::send(ok ? "ok" : rt->last_error());
        _exit(ok ? 0 : 1);  // dies without releasing anything
        return 0;
    });
    ASSERT_EQ(crashed.line(), "ok");
    ASSERT_EQ(crashed.wait(), 0);
    EXPECT_TRUE(std::filesystem::exists(home.path() / "hosts/inf1.xlarge/processes" / fmt::format("{}.json", crashed.pid())));
    test::Child next = holder(home, "inf1.xlarge", "0", false);
    EXPECT_EQ(next.line(), "ok");
    EXPECT_EQ(next.wait(), 0);
}

// firmware_hang: the bring-up of a fresh host resets every device; the firmware never acknowledges, the
// devices stay INVALID, and every later process's init fails until rmmod + modprobe.
TEST(MultiProcessFaults, FirmwareHangLeavesDevicesInvalidUntilRmmodAndModprobe) {
    test::TempHome home;
    {
        driver::HostState state(home.path(), "inf2.xlarge");
        driver::FaultSwitches(state).set(driver::Fault::FirmwareHang, 1);
    }
    test::Child first = holder(home, "inf2.xlarge", "0", false);
    const std::string error = first.line();
    EXPECT_EQ(first.wait(), 1);
    EXPECT_EQ(error, "NRT:nrt_init Failed to initialize devices: nd0 is in an invalid state "
                     "(recover with: neuron-sim --instance inf2.xlarge rmmod neuron && neuron-sim --instance inf2.xlarge modprobe neuron)");
    test::Child again = holder(home, "inf2.xlarge", "0", false);
    EXPECT_EQ(again.line(), error);  // still INVALID: a later process does not fix it
    EXPECT_EQ(again.wait(), 1);
    test::Child reload([&home](std::string&) {
        driver::HostState state(home.path(), "inf2.xlarge");
        driver::SimulatedHost host(test::shipped_configs().host("inf2.xlarge"), driver::SimulatedHost::faults_from(state));
        driver::NeuronDriver driver(host.platform(), state);
        driver.rmmod();
        return driver.modprobe().empty() ? 0 : 1;
    });
    EXPECT_EQ(reload.wait(), 0);
    test::Child after = holder(home, "inf2.xlarge", "0", false);
    EXPECT_EQ(after.line(), "ok");
    EXPECT_EQ(after.wait(), 0);
}

}  // namespace
}  // namespace nsim
