#include "host_state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "isa/bounded_file.h"
#include "kernel_clock.h"
#include "process_identity.h"

namespace nsim::driver {
namespace fs = std::filesystem;

namespace {

// Records are a few KB; anything past this is damage (or /dev/zero linked in), not a record.
constexpr uint64_t kMaxRecordBytes = uint64_t(16) << 20;
// kernel.log grows by a few lines per modprobe and run.
constexpr uint64_t kMaxKernelLogBytes = uint64_t(256) << 20;

std::string read_text(const fs::path& file, uint64_t max_bytes = kMaxRecordBytes) {
    try {
        return isa::read_bounded_text(file, max_bytes, "host state file");
    } catch (const isa::FileError& e) {
        throw HostStateError(e.what());
    }
}

void make_directories(const fs::path& dir) {
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) throw HostStateError(fmt::format("cannot create host state directory {}: {}", dir.string(), error.message()));
}

}  // namespace

fs::path HostState::default_home() {
    if (const char* home = std::getenv("NEURON_SIM_HOME"); home && *home) {
        // Refused here rather than found missing later: a file there would read as "no host yet".
        std::error_code error;
        if (fs::exists(home, error) && !fs::is_directory(home, error))
            throw HostStateError(fmt::format("NEURON_SIM_HOME={} is not a directory", home));
        return home;
    }
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
        throw HostStateError(fmt::format("host state file {} is damaged ({})", file.string(), e.what()));
    }
}

std::optional<MachineRecord> HostState::read_machine_as_written() const {
    const fs::path file = dir_ / "machine.json";
    try {
        const auto json = read_json(file);
        if (!json) return std::nullopt;
        MachineRecord machine = json->get<MachineRecord>();
        // nlohmann converts 1e30 or -1 into a counter without a word; a record that does not read
        // back as written holds a value its field cannot.
        if (nlohmann::json(machine) != *json)
            throw HostStateError(fmt::format("host state file {} is damaged (a value is out of range for its field)",
                                             file.string()));
        return machine;
    } catch (const HostStateError&) {
        throw;
    } catch (const std::exception& e) {
        throw HostStateError(fmt::format("host state file {} is damaged ({})", file.string(), e.what()));
    }
}

std::optional<MachineRecord> HostState::read_machine() const {
    try {
        return read_machine_as_written();
    } catch (const HostStateError& e) {
        throw HostStateError(fmt::format("{}; 'neuron-sim --instance {} modprobe neuron' rebuilds it", e.what(), instance_));
    }
}

std::optional<MachineRecord> HostState::read_machine_repairing(std::string& damage) const {
    damage.clear();
    try {
        return read_machine_as_written();
    } catch (const HostStateError& e) {
        damage = e.what();
    }
    // Its devices are reset by the rebuild: not while a process may be using them.
    for (const ProcessRecord& p : live_processes())
        if (!p.open_devices.empty() || !p.unreadable.empty())
            throw HostStateError(fmt::format("{} (not while PID {} uses the host)", damage, p.pid));
    std::error_code ignored;
    fs::rename(dir_ / "machine.json", dir_ / "machine.json.damaged", ignored);
    return std::nullopt;
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

// What processes/<pid>.json holds: nothing (no file), a record, or why it is not one.
struct RecordFile {
    bool present = false;
    std::optional<ProcessRecord> record;
    std::string damage;
};

RecordFile read_record_file(const fs::path& file) {
    RecordFile read;
    std::error_code ignored;
    if (!fs::exists(file, ignored)) return read;
    read.present = true;
    try {
        read.record = nlohmann::json::parse(read_text(file)).get<ProcessRecord>();
    } catch (const std::exception& e) {
        read.damage = std::string(e.what()).substr(0, 120);
    }
    return read;
}

bool is_alive(const ProcessRecord& record) { return ProcessIdentity{record.pid, record.start_time, record.command}.alive(); }

// The pid a processes/ file is named after ("123.json", "123.lock").
std::optional<int> pid_named_by(const fs::path& file) {
    const std::string stem = file.stem().string();
    if (stem.empty() || stem.size() > 9 || stem.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoi(stem);
}

// Each process holding something keeps a shared flock on processes/<pid>.lock for as long as it
// does, so its claim outlives damage to, or the removal of, its JSON record.
std::map<std::string, int>& presence_fds() {
    static std::map<std::string, int> fds;
    return fds;
}

bool presence_held(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);  // releases the lock if it was taken
    return held;
}

}  // namespace

ProcessRecord HostState::unreadable_claim(int pid, const std::string& why) const {
    ProcessRecord claim;
    claim.pid = pid;
    claim.unreadable = why;
    claim.command = fmt::format("[{}: holds every NeuronCore until it exits]", why);
    try {
        if (const auto machine = read_machine())
            for (const DeviceRecord& device : machine->devices) {
                claim.open_devices.push_back(device.index);
                for (unsigned core = 0; core < device.cores.size(); ++core) claim.cores.push_back({device.index, core});
            }
    } catch (const HostStateError&) {
        // Without the machine's devices the claim still stands: `unreadable` keeps the host in use.
    }
    return claim;
}

std::optional<ProcessRecord> HostState::live_record(int pid) const {
    const fs::path file = dir_ / "processes" / fmt::format("{}.json", pid);
    RecordFile read = read_record_file(file);
    // A damaged record of a running pid still holds (fail closed): whoever damaged it cannot free
    // the cores of a process that is still using them.
    auto judged = [&]() -> std::optional<std::optional<ProcessRecord>> {
        if (!read.present) return std::optional<ProcessRecord>();
        if (read.record && is_alive(*read.record)) return read.record;
        if (!read.record && ProcessIdentity::pid_running(pid))
            return unreadable_claim(pid, fmt::format("its record {} is unreadable ({})", file.string(), read.damage));
        return std::nullopt;  // stale
    };
    if (auto live = judged()) return *live;
    // Stale: removed under the lock, and only if the file still holds a stale record. A process that
    // reuses the pid writes its own record under the lock (write_process), which must stay.
    const Lock lock = this->lock();
    read = read_record_file(file);
    if (auto live = judged()) return *live;
    // The driver's release of a process that died without closing its devices (driver.md 10).
    if (read.record && !read.record->open_devices.empty())
        append_kernel_log(kernel_log_line(*this, fmt::format("npid_detach: pid={}, slot=0", read.record->pid)));
    std::error_code ignored;
    fs::remove(file, ignored);
    fs::remove(dir_ / "activity" / file.filename(), ignored);
    return std::nullopt;
}

std::vector<ProcessRecord> HostState::live_processes() const {
    std::vector<ProcessRecord> live;
    std::vector<int> lock_pids;
    for (const auto& entry : fs::directory_iterator(dir_ / "processes")) {
        const std::optional<int> pid = pid_named_by(entry.path());
        if (!pid) continue;
        if (entry.path().extension() == ".lock") lock_pids.push_back(*pid);
        if (entry.path().extension() != ".json") continue;
        if (auto record = live_record(*pid)) live.push_back(*record);
    }
    for (int pid : lock_pids) {
        const fs::path lock_file = dir_ / "processes" / fmt::format("{}.lock", pid);
        const bool listed = std::any_of(live.begin(), live.end(), [&](const ProcessRecord& p) { return p.pid == pid; });
        if (presence_held(lock_file)) {
            if (!listed && !fs::exists(dir_ / "processes" / fmt::format("{}.json", pid)))
                live.push_back(unreadable_claim(pid, fmt::format("its record {}.json is missing", pid)));
            continue;
        }
        // Left by a process that was killed: removed under the lock, where no holder is taking it.
        const Lock lock = this->lock();
        std::error_code ignored;
        if (!presence_held(lock_file)) fs::remove(lock_file, ignored);
    }
    return live;
}

void HostState::write_process(const ProcessRecord& process) const {
    const Lock lock = this->lock();  // see live_processes()
    write_file(fs::path("processes") / fmt::format("{}.json", process.pid), nlohmann::json(process).dump(2) + "\n");
    const fs::path lock_file = dir_ / "processes" / fmt::format("{}.lock", process.pid);
    if (process.pid != int(getpid()) || presence_fds().count(lock_file.string())) return;
    const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw HostStateError(fmt::format("cannot open {}: {}", lock_file.string(), std::strerror(errno)));
    while (flock(fd, LOCK_SH) != 0)
        if (errno != EINTR) {
            const int error = errno;
            ::close(fd);
            throw HostStateError(fmt::format("cannot lock {}: {}", lock_file.string(), std::strerror(error)));
        }
    presence_fds()[lock_file.string()] = fd;
}

void HostState::remove_process(int pid) const {
    std::error_code ignored;
    // The lock goes first: between the two, a reader sees the record (still a claim), never a
    // held lock without its record (a claim on everything).
    const fs::path lock_file = dir_ / "processes" / fmt::format("{}.lock", pid);
    if (auto it = presence_fds().find(lock_file.string()); it != presence_fds().end()) {
        fs::remove(lock_file, ignored);
        ::close(it->second);
        presence_fds().erase(it);
    }
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
    if (!fs::exists(dir_ / "kernel.log")) return lines;
    std::istringstream in(read_text(dir_ / "kernel.log", kMaxKernelLogBytes));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

int64_t HostState::read_fault(const std::string& name) const {
    const fs::path file = debugfs_dir() / name;
    if (!fs::exists(file)) return 0;
    const std::string text = read_text(file);
    int64_t value = 0;
    try {
        size_t used = 0;
        value = std::stoll(text, &used);
        if (text.find_first_not_of(" \t\r\n", used) != std::string::npos) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
        throw HostStateError(fmt::format("fault switch {} does not hold a number", file.string()));
    }
    // The values `neuron-sim fault set` writes; anything else was not written by it.
    if (value < -1)
        throw HostStateError(fmt::format("fault switch {} holds {}; it must be -1 (always), 0 (off) or a count",
                                         file.string(), value));
    return value;
}

void HostState::write_fault(const std::string& name, int64_t value) const {
    write_file(debugfs_dir() / name, fmt::format("{}\n", value));
}

}  // namespace nsim::driver
