#include "host_state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "kernel_clock.h"
#include "process_identity.h"

namespace nsim::driver {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void make_directories(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) throw HostStateError(fmt::format("cannot create host state directory {}: {}", dir.string(), error.message()));
}

}  // namespace

fs::path HostState::default_home() {
    if (const char* home = std::getenv("NEURON_SIM_HOME"); home && *home) return home;
    if (const char* user_home = std::getenv("HOME"); user_home && *user_home) return fs::path(user_home) / ".neuron-sim";
    throw HostStateError("cannot place the host state: neither NEURON_SIM_HOME nor HOME is set");
}

HostState::HostState(fs::path home, std::string instance) : instance_(std::move(instance)), dir_(home / "hosts" / instance_) {
    for (const char* sub : {"processes", "activity", "debugfs/neuron", "sys", "dev"}) make_directories(dir_ / sub);
}

namespace {
struct HeldLock {
    int fd = -1;
    int depth = 0;
};
std::map<std::string, HeldLock>& held_locks() {
    static std::map<std::string, HeldLock> locks;
    return locks;
}
}  // namespace

HostState::Lock::Lock(const fs::path& file) : key_(file.string()) {
    HeldLock& held = held_locks()[key_];
    if (held.depth++ > 0) return;
    held.fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (held.fd < 0) {
        held_locks().erase(key_);
        throw HostStateError(fmt::format("cannot open {}: {}", file.string(), std::strerror(errno)));
    }
    while (flock(held.fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        const int error = errno;
        ::close(held.fd);
        held_locks().erase(key_);
        throw HostStateError(fmt::format("cannot lock {}: {}", file.string(), std::strerror(error)));
    }
}

HostState::Lock::~Lock() {
    if (key_.empty()) return;
    auto it = held_locks().find(key_);
    if (it == held_locks().end() || --it->second.depth > 0) return;
    ::close(it->second.fd);  // closing releases the flock
    held_locks().erase(it);
}

HostState::Lock HostState::lock() const { return Lock(dir_ / "host.lock"); }

void HostState::write_file(const fs::path& file, const std::string& text) const {
    const fs::path target = file.is_absolute() ? file : dir_ / file;
    make_directories(target.parent_path());
    const fs::path temporary = target.string() + fmt::format(".tmp.{}", getpid());
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) throw HostStateError(fmt::format("cannot write {}", temporary.string()));
    }
    std::error_code error;
    fs::rename(temporary, target, error);
    if (error) throw HostStateError(fmt::format("cannot replace {}: {}", target.string(), error.message()));
}

std::optional<nlohmann::json> HostState::read_json(const fs::path& file) const {
    if (!fs::exists(file)) return std::nullopt;
    try {
        return nlohmann::json::parse(read_text(file));
    } catch (const nlohmann::json::exception& e) {
        throw HostStateError(fmt::format("host state file {} is damaged ({}); remove {} to start afresh",
                                         file.string(), e.what(), dir_.string()));
    }
}

std::optional<MachineRecord> HostState::read_machine() const {
    const auto json = read_json(dir_ / "machine.json");
    if (!json) return std::nullopt;
    try {
        return json->get<MachineRecord>();
    } catch (const std::exception& e) {
        throw HostStateError(fmt::format("host state file {} is damaged ({}); remove {} to start afresh",
                                         (dir_ / "machine.json").string(), e.what(), dir_.string()));
    }
}

void HostState::write_machine(const MachineRecord& machine) const {
    write_file("machine.json", nlohmann::json(machine).dump(2) + "\n");
}

std::optional<ProcessRecord> HostState::read_process(int pid) const {
    const auto json = read_json(dir_ / "processes" / fmt::format("{}.json", pid));
    if (!json) return std::nullopt;
    return json->get<ProcessRecord>();
}

namespace {

// A record as written, or nothing when absent or not ours to judge (written by a newer or broken program).
std::optional<ProcessRecord> process_record_in(const fs::path& file) {
    try {
        if (!fs::exists(file)) return std::nullopt;
        return nlohmann::json::parse(read_text(file)).get<ProcessRecord>();
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

bool is_alive(const ProcessRecord& record) { return ProcessIdentity{record.pid, record.start_time, record.command}.alive(); }

}  // namespace

std::vector<ProcessRecord> HostState::live_processes() const {
    std::vector<ProcessRecord> live;
    for (const auto& entry : fs::directory_iterator(dir_ / "processes")) {
        if (entry.path().extension() != ".json") continue;
        std::optional<ProcessRecord> record = process_record_in(entry.path());
        if (!record) continue;
        if (!is_alive(*record)) {
            // Removed under the lock, and only if the file still holds that stale record: a process
            // that reuses the pid writes its own record under the lock (write_process), which must stay.
            const Lock lock = this->lock();
            record = process_record_in(entry.path());
            if (record && !is_alive(*record)) {
                // The driver's release of a process that died without closing its devices (driver.md 10).
                if (!record->open_devices.empty())
                    append_kernel_log(kernel_log_line(*this, fmt::format("npid_detach: pid={}, slot=0", record->pid)));
                std::error_code ignored;
                fs::remove(entry.path(), ignored);
                fs::remove(dir_ / "activity" / entry.path().filename(), ignored);
                continue;
            }
            if (!record) continue;
        }
        live.push_back(*record);
    }
    return live;
}

void HostState::write_process(const ProcessRecord& process) const {
    const Lock lock = this->lock();  // see live_processes()
    write_file(fs::path("processes") / fmt::format("{}.json", process.pid), nlohmann::json(process).dump(2) + "\n");
}

void HostState::remove_process(int pid) const {
    std::error_code ignored;
    fs::remove(dir_ / "processes" / fmt::format("{}.json", pid), ignored);
}

std::vector<ActivityRecord> HostState::live_activity() const {
    std::vector<ActivityRecord> result;
    const auto processes = live_processes();
    for (const auto& process : processes) {
        try {
            if (auto json = read_json(dir_ / "activity" / fmt::format("{}.json", process.pid)))
                result.push_back(json->get<ActivityRecord>());
        } catch (const std::exception&) {
        }
    }
    return result;
}

void HostState::write_activity(const ActivityRecord& activity) const {
    write_file(fs::path("activity") / fmt::format("{}.json", activity.pid), nlohmann::json(activity).dump() + "\n");
}

void HostState::remove_activity(int pid) const {
    std::error_code ignored;
    fs::remove(dir_ / "activity" / fmt::format("{}.json", pid), ignored);
}

void HostState::append_kernel_log(const std::string& line) const {
    // O_APPEND writes of one short line are atomic with respect to other appenders.
    const int fd = ::open((dir_ / "kernel.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const std::string text = line + "\n";
    [[maybe_unused]] const ssize_t written = ::write(fd, text.data(), text.size());
    ::close(fd);
}

std::vector<std::string> HostState::kernel_log() const {
    std::vector<std::string> lines;
    std::istringstream in(read_text(dir_ / "kernel.log"));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

int64_t HostState::read_fault(const std::string& name) const {
    const fs::path file = debugfs_dir() / name;
    if (!fs::exists(file)) return 0;
    try {
        return std::stoll(read_text(file));
    } catch (const std::exception&) {
        throw HostStateError(fmt::format("fault switch {} does not hold a number", file.string()));
    }
}

void HostState::write_fault(const std::string& name, int64_t value) const {
    write_file(debugfs_dir() / name, fmt::format("{}\n", value));
}

}  // namespace nsim::driver
