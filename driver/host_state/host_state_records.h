// What the host state directory holds (layout in driver/host_state/STATE.md), as plain structs with their JSON
// form. neuron-ls and neuron-top read these through HostState; the driver and runtime write them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nsim::driver {

// The driver's device_state (driver.md 5): RESET while a full-device reset runs, READY, INVALID
// after a failure until the module is reloaded.
enum class DeviceState { Reset = 0, Ready = 1, Invalid = 2 };
const char* name_of(DeviceState state);

struct CoreCounters {
    uint32_t reset_req_count = 0;
    uint32_t reset_fail_count = 0;
    uint32_t model_load_count = 0;
    uint64_t inference_count = 0;
};

struct DeviceRecord {
    unsigned index = 0;
    std::string bdf;
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    DeviceState state = DeviceState::Invalid;
    std::string reason;                 // why it is INVALID, the driver's message
    uint64_t serial_number = 0;
    uint32_t reset_count = 0;           // completed full-device resets
    uint32_t reset_fail_count = 0;
    std::vector<CoreCounters> cores;
    std::vector<uint32_t> memory_ecc;   // per channel: corrected << 16 | uncorrected, as firmware reports
    uint32_t sram_ecc = 0;
};

struct MachineRecord {
    std::string instance;
    std::string chip;
    bool driver_loaded = false;
    std::string driver_version;
    uint32_t load_count = 0;            // modprobes since the state was created
    std::vector<DeviceRecord> devices;
};

struct CoreId {
    unsigned device = 0;
    unsigned core = 0;                  // index within the device
    bool operator==(const CoreId& o) const { return device == o.device && core == o.core; }
    bool operator<(const CoreId& o) const { return device != o.device ? device < o.device : core < o.core; }
};

// A model's device memory on one NeuronCore (the channel next to it), by the categories the real
// tools show (neuron-top, neuron-monitor's neuroncore_memory_usage): instruction streams, weights and
// constants, and the other tensors (inputs, outputs, scratch).
struct CoreMemoryUsage {
    CoreId core;
    uint64_t model_code = 0;
    uint64_t constants = 0;
    uint64_t tensors = 0;
    uint64_t total() const { return model_code + constants + tensors; }
};

struct ModelRecord {
    uint32_t id = 0;
    std::string name;
    std::vector<CoreId> cores;
    double load_time_s = 0;             // simulated
    uint64_t device_bytes = 0;
    std::vector<CoreMemoryUsage> core_memory;   // where device_bytes lie, core by core
    uint64_t host_bytes = 0;            // host tensors the model keeps in the driver's host memory
};

// A device-memory channel of the host: the driver's memory pools are per (device, channel).
struct MemoryChannelId {
    unsigned device = 0;
    unsigned channel = 0;
    bool operator<(const MemoryChannelId& o) const { return device != o.device ? device < o.device : channel < o.channel; }
};

// One process using the devices; written only by that process (processes/<pid>.json).
struct ProcessRecord {
    int pid = 0;
    uint64_t start_time = 0;
    std::string command;
    std::vector<unsigned> open_devices; // devices with an open handle (/dev/neuronN)
    std::vector<CoreId> cores;          // NeuronCores it holds
    std::vector<ModelRecord> models;
    std::map<MemoryChannelId, uint64_t> device_memory_bytes;  // allocated, by device-memory channel
    uint64_t host_memory_bytes = 0;
    // Not stored: set on the claim HostState reports for a live process whose record is damaged or
    // missing, which holds every device and core of the host until that process exits (fail closed).
    std::string unreadable;

    uint64_t device_memory_on(unsigned device) const;   // over the device's channels
};

// Per-core activity, for neuron-top (activity/<pid>.json): utilization is busy_s / interval_s.
struct ActivitySample {
    double sim_end_s = 0;               // simulated time at the end of the interval
    double interval_s = 0;              // since the core's previous sample: simulated time, plus the
                                        // application's own wall time outside runtime calls
    double busy_s = 0;                  // time a program executed on the core
    double flops = 0;                   // floating-point operations the core's matmuls did in the interval
};
struct CoreActivity {
    CoreId core;
    std::vector<ActivitySample> samples;  // oldest first, bounded
};
// A process's executions since it started, for neuron-monitor's execution_stats: outcome counts and
// the latencies (seconds) of the newest ones, end to end in the runtime and on the device alone.
struct ExecutionStats {
    uint64_t completed = 0;
    uint64_t completed_with_err = 0;
    uint64_t timed_out = 0;
    uint64_t failed = 0;                // other failures (runtime, hardware)
    std::vector<double> total_latency_s;    // newest last, bounded
    std::vector<double> device_latency_s;
};
struct ActivityRecord {
    int pid = 0;
    double updated_wall_s = 0;          // wall clock (seconds since the epoch) of the last write
    double publish_period_wall_s = 0;   // wall seconds between the last two writes; 0 after the first
    std::vector<CoreActivity> cores;
    std::string tag;                    // NEURON_PROCESS_TAG; empty: the pid is the tag
    ExecutionStats executions;
};

// JSON: every field under its own name; a device state by its driver name (an unknown name throws).
void to_json(nlohmann::json& j, DeviceState state);
void from_json(const nlohmann::json& j, DeviceState& state);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CoreCounters, reset_req_count, reset_fail_count, model_load_count, inference_count)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceRecord, index, bdf, vendor_id, device_id, state, reason, serial_number,
                                   reset_count, reset_fail_count, cores, memory_ecc, sram_ecc)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MachineRecord, instance, chip, driver_loaded, driver_version, load_count, devices)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CoreId, device, core)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CoreMemoryUsage, core, model_code, constants, tensors)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ModelRecord, id, name, cores, load_time_s, device_bytes, core_memory,
                                                host_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ActivitySample, sim_end_s, interval_s, busy_s, flops)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ExecutionStats, completed, completed_with_err, timed_out, failed,
                                                total_latency_s, device_latency_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CoreActivity, core, samples)
// A record without publish_period_wall_s, tag or executions (an older writer) reads them as empty.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ActivityRecord, pid, updated_wall_s, publish_period_wall_s, cores, tag,
                                                executions)
// device_memory_bytes is an object keyed "device.channel" ("0.1"); a key without a channel (older
// records) is channel 0.
void to_json(nlohmann::json& j, const ProcessRecord& v);
void from_json(const nlohmann::json& j, ProcessRecord& v);

}  // namespace nsim::driver
