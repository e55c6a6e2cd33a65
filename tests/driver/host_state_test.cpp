// The host state's process records: a record of a process that is gone is removed as it is found,
// with its activity, but only under the host's lock and only while the file still holds that stale
// record - what a process reusing the pid writes meanwhile (under the lock) stays.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "driver_test_support.h"
#include "process_identity.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

// The record of a process that has exited.
driver::ProcessRecord exited_process() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    driver::ProcessRecord record;
    record.pid = int(child);
    record.start_time = 1;
    record.command = "gone";
    record.cores = {{0, 0}};
    return record;
}

driver::ProcessRecord this_process() {
    driver::ProcessRecord record = driver::ProcessIdentity::self().record();
    record.cores = {{0, 1}};
    return record;
}

TEST(HostState, AStaleRecordAndItsActivityAreRemovedWhenFound) {
    test::TempHome home;
    driver::HostState state(home.path(), "inf2.xlarge");
    const driver::ProcessRecord gone = exited_process();
    state.write_process(gone);
    driver::ActivityRecord activity;
    activity.pid = gone.pid;
    state.write_activity(activity);
    state.write_process(this_process());
    const auto live = state.live_processes();
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].pid, getpid());
    EXPECT_FALSE(fs::exists(state.dir() / "processes" / fmt::format("{}.json", gone.pid)));
    EXPECT_FALSE(fs::exists(state.dir() / "activity" / fmt::format("{}.json", gone.pid)));
}

TEST(HostState, AStaleRecordIsRemovedOnlyUnderTheLockAndOnlyIfStillStale) {
    test::TempHome home;
    driver::HostState state(home.path(), "inf2.xlarge");
    const driver::ProcessRecord gone = exited_process();
    state.write_process(gone);
    const fs::path file = state.dir() / "processes" / fmt::format("{}.json", gone.pid);

    // Another process holds the lock; while it does, the file is replaced by a live process's record
    // (this test's, as a process that got the dead one's pid would write its own).
    const driver::ProcessRecord reused = this_process();
    int locked[2], proceed[2];
    ASSERT_EQ(pipe(locked), 0);
    ASSERT_EQ(pipe(proceed), 0);
    const pid_t holder = fork();
    if (holder == 0) {
        driver::HostState own(home.path(), "inf2.xlarge");
        const driver::HostState::Lock lock = own.lock();
        char c = 'l';
        [[maybe_unused]] auto n = write(locked[1], &c, 1);
        n = read(proceed[0], &c, 1);
        own.write_file(file, nlohmann::json(reused).dump());
        _exit(0);  // the lock goes with the process
    }
    char c = 0;
    ASSERT_EQ(read(locked[0], &c, 1), 1);
    std::atomic<bool> listed{false};
    std::vector<driver::ProcessRecord> live;
    std::thread lister([&] {
        live = state.live_processes();
        listed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(listed.load());       // waiting for the lock...
    EXPECT_TRUE(fs::exists(file));     // ...without having removed anything
    c = 'g';
    ASSERT_EQ(write(proceed[1], &c, 1), 1);
    lister.join();
    waitpid(holder, nullptr, 0);
    EXPECT_TRUE(fs::exists(file));
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].pid, getpid());
}

}  // namespace
}  // namespace nsim
