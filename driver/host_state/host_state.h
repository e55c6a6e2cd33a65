// The persistent state of one simulated host: a directory under $NEURON_SIM_HOME (default
// ~/.neuron-sim) created on first use. Layout and rules in driver/host_state/STATE.md. Every file is replaced
// atomically (written beside, then renamed), so a reader never sees half a file; read-modify-write of
// shared files happens under an exclusive flock on host.lock; per-process files are written only by
// their process and are stale (ignored and removed) once that process is gone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_state_records.h"

namespace nsim::driver {

// The state directory cannot be used (unwritable, damaged file...). what() is one line.
class HostStateError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class HostState {
public:
    // $NEURON_SIM_HOME if set, else ~/.neuron-sim.
    static std::filesystem::path default_home();

    HostState(std::filesystem::path home, std::string instance);

    const std::filesystem::path& dir() const { return dir_; }
    const std::string& instance() const { return instance_; }

    // An exclusive lock on the host's state, held until destroyed. Re-entrant within a process (a
    // nested Lock of the same file shares the outer one), so helpers may lock without knowing whether
    // their caller already does.
    class Lock {
    public:
        explicit Lock(const std::filesystem::path& file);
        ~Lock();
        Lock(const Lock&) = delete;
        Lock& operator=(const Lock&) = delete;
        Lock(Lock&& other) noexcept : key_(std::move(other.key_)) { other.key_.clear(); }

    private:
        std::string key_;
    };
    Lock lock() const;

    // machine.json: nothing before the host was first brought up.
    // A damaged file (unparsable, a value out of its field's range) is a HostStateError that says
    // modprobe rebuilds it.
    std::optional<MachineRecord> read_machine() const;
    // For modprobe: a damaged machine.json reads as absent (moved aside to machine.json.damaged,
    // `damage` says what was wrong) so that the bring-up writes a new one - refused while a process
    // uses the host, whose devices the bring-up would reset.
    std::optional<MachineRecord> read_machine_repairing(std::string& damage) const;
    void write_machine(const MachineRecord& machine) const;   // hold the lock

    // processes/<pid>.json of live processes; stale records are removed as they are found, under the
    // lock. write_process takes the lock too, so a record of a process that reuses a dead one's pid
    // is never removed as the dead one's. Fail closed: a record that cannot be read while its pid
    // runs, or a missing one whose process still holds its processes/<pid>.lock, is reported as a
    // claim on every device and core (ProcessRecord::unreadable says why).
    std::vector<ProcessRecord> live_processes() const;
    std::optional<ProcessRecord> read_process(int pid) const;
    void write_process(const ProcessRecord& process) const;
    void remove_process(int pid) const;

    // activity/<pid>.json of live processes.
    std::vector<ActivityRecord> live_activity() const;
    void write_activity(const ActivityRecord& activity) const;
    void remove_activity(int pid) const;

    // kernel.log: the driver's messages, one per line, like dmesg.
    void append_kernel_log(const std::string& line) const;
    std::vector<std::string> kernel_log() const;

    // debugfs/neuron/<name>: fault-injection switches; absent means 0.
    int64_t read_fault(const std::string& name) const;
    void write_fault(const std::string& name, int64_t value) const;
    std::filesystem::path debugfs_dir() const { return dir_ / "debugfs" / "neuron"; }

    // The sysfs-style tree and the device nodes, regenerated from machine.json by the driver.
    std::filesystem::path sysfs_dir() const { return dir_ / "sys"; }
    std::filesystem::path dev_dir() const { return dir_ / "dev"; }

    // Replaces `file` (relative to the state directory or absolute) with `text`, atomically.
    void write_file(const std::filesystem::path& file, const std::string& text) const;

private:
    std::optional<nlohmann::json> read_json(const std::filesystem::path& file) const;
    std::optional<MachineRecord> read_machine_as_written() const;
    std::optional<ProcessRecord> live_record(int pid) const;
    ProcessRecord unreadable_claim(int pid, const std::string& why) const;

    std::string instance_;
    std::filesystem::path dir_;
};

}  // namespace nsim::driver
