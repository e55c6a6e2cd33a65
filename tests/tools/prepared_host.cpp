#include "prepared_host.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "activity_publisher.h"

namespace nsim::test {
namespace fs = std::filesystem;

namespace {

uint64_t start_time_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(in, text);
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    for (int index = 3; index <= 22 && fields >> field; ++index)
        if (index == 22) return std::stoull(field);
    throw std::runtime_error("no start time for pid " + std::to_string(pid));
}

}  // namespace

PreparedHost::PreparedHost(const std::string& instance) : instance_(instance) {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    home_ = fs::path(testing::TempDir()) / ("nsim-tools-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(home_);
    fs::create_directories(home_);
    state_ = std::make_unique<driver::HostState>(home_, instance_);
}

PreparedHost::~PreparedHost() {
    for (pid_t child : children_) {
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
    }
    std::error_code ignored;
    fs::remove_all(home_, ignored);
}

std::string PreparedHost::env() const { return "NEURON_SIM_HOME=" + home_.string(); }

driver::ProcessRecord PreparedHost::start_process(const std::string& command) {
    const pid_t child = fork();
    if (child == 0) {
        // Lives until the test kills it, or dies with the test; never returns into the test.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;) pause();
    }
    if (child < 0) throw std::runtime_error("fork failed");
    children_.push_back(child);
    driver::ProcessRecord record;
    record.pid = int(child);
    // /proc/<pid>/stat exists as soon as fork returns.
    record.start_time = start_time_of(child);
    record.command = command;
    return record;
}

driver::ProcessRecord PreparedHost::finished_process(const std::string& command) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    if (child < 0) throw std::runtime_error("fork failed");
    waitpid(child, nullptr, 0);
    driver::ProcessRecord record;
    record.pid = int(child);
    record.start_time = 1;
    record.command = command;
    return record;
}

void PreparedHost::write_machine(bool driver_loaded) {
    driver::MachineRecord machine;
    machine.instance = instance_;
    machine.driver_loaded = driver_loaded;
    state_->write_machine(machine);
}

void PreparedHost::write_activity(int pid, const std::vector<std::pair<driver::CoreId, double>>& busy_fraction, double age_s,
                                  double period_s) {
    constexpr double interval_s = 1e-3;
    driver::ActivityRecord record;
    record.pid = pid;
    record.updated_wall_s = driver::wall_clock_now_s() - age_s;
    record.publish_period_wall_s = period_s;
    for (const auto& [core, fraction] : busy_fraction)
        record.cores.push_back({core, {{1.0, interval_s, fraction * interval_s}}});
    state_->write_activity(record);
}

}  // namespace nsim::test
