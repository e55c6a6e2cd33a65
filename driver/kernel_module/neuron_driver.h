// The emulated neuron kernel module, as seen by one process of the simulated host. It reaches the
// devices only through PCI configuration space, BAR0 registers, and memory (host memory the device
// reads and writes over its host window, device memory through DMA), and keeps the host's shared
// state (module loaded, device states, who holds what) in the HostState directory.
//   modprobe()  probe every device by vendor/device id, map BARs, wait for firmware, set up the
//               mailbox, memory pools and DMA queues, reset every device, publish sysfs and /dev
//   attach()    a process starts using the loaded module: probe again in this process (each process
//               elaborates its own simulated hardware) but keep the host's device states
//   rmmod()     refused with "Module neuron is in use" while any process has a device open
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bus_access.h"
#include "fault_switches.h"
#include "fwio_client.h"
#include "h2t_queue.h"
#include "host_state.h"
#include "kernel_log.h"
#include "memory_pool.h"
#include "module_advice.h"
#include "notification_queue.h"
#include "pci_probe.h"
#include "platform/platform.h"
#include "process_session.h"

namespace nsim::driver {

// A failed driver call: an errno value and the driver's one-line message.
class DriverError : public std::runtime_error {
public:
    DriverError(int error, const std::string& message) : std::runtime_error(message), error_(error) {}
    int error() const { return error_; }

private:
    int error_;
};

// The refusals of attach() and open() in the driver's words, for processes that use the devices
// without a driver of their own too (a bare `neuron-sim run`).
DriverError module_not_loaded_error();                       // ENODEV
DriverError invalid_state_error(unsigned device);            // EINVAL "ndN is in an invalid state"

// When a memory chunk is freed (driver.md 8).
enum class Lifespan { Local, Process, AllProcess, Device };

struct MemChunk {
    uint64_t handle = 0;
    unsigned device = 0;
    bool host = false;            // host memory (from the driver's host pool) or device memory
    unsigned channel = 0;
    unsigned nc = 0;
    uint64_t address = 0;         // device address, or host physical address
    uint64_t size = 0;
    Lifespan lifespan = Lifespan::Process;
};

class NeuronDriver {
public:
    NeuronDriver(sim::Platform& platform, HostState& state);
    ~NeuronDriver();
    NeuronDriver(const NeuronDriver&) = delete;
    NeuronDriver& operator=(const NeuronDriver&) = delete;

    // Module lifecycle. modprobe of a loaded module does nothing (like modprobe). It returns the
    // messages of devices that failed to come up (they are INVALID); throws when no device is found.
    std::vector<std::string> modprobe();
    // Throws DriverError(ENODEV) when the module is not loaded. The first use of a host that has never
    // been brought up loads the module, as a freshly booted instance has it loaded.
    void attach();
    void rmmod();
    bool loaded() const;

    const config::HostSpec& spec() const { return spec_; }
    HostState& state() { return state_; }
    ProcessSession& session() { return session_; }
    const FaultSwitches& faults() const { return faults_; }

    unsigned device_count() const { return unsigned(devices_.size()); }
    DeviceState device_state(unsigned device) const;
    std::string device_reason(unsigned device) const;
    const ProbedFunction& pci(unsigned device) const { return at(device).pci; }

    // /dev/neuronN. open fails with EINVAL "ndN is in an invalid state" or EBUSY (too many processes).
    void open(unsigned device);
    void close(unsigned device);
    bool is_open(unsigned device) const;

    // MEM_ALLOC: device memory on `channel` (or host memory) for core `nc`. Throws DriverError(ENOMEM)
    // with the driver's mc_alloc message when the pool cannot satisfy it; a device channel's pool is
    // shared with every live process on the host, as the kernel's is.
    uint64_t mem_alloc(unsigned device, uint64_t size, unsigned channel, unsigned nc, Lifespan lifespan, bool host = false);
    void mem_free(uint64_t handle);
    const MemChunk& chunk(uint64_t handle) const;
    // The device's own view of a chunk: device address, or pci_host_base + physical for host memory.
    uint64_t bus_address(const MemChunk& chunk) const;
    unsigned channel_of_core(unsigned nc) const;

    // MEM_BUF_COPY: user buffer <-> chunk through the core's H2T queue and a host bounce buffer.
    // Throws DriverError(ETIMEDOUT) with the DMA timeout message.
    void copy_to_device(uint64_t handle, uint64_t offset, const void* data, uint64_t size);
    void copy_from_device(uint64_t handle, uint64_t offset, void* data, uint64_t size);
    // MEM_BUF_COPY from several threads at once, each on its own core's H2T queue: lane i's copies run
    // in order on core lanes[i].nc's queue (of the copies' device), and the lanes run at the same time,
    // sharing the PCIe link and the device's bounce buffer (each lane its equal part). Returns when
    // every lane is done, with each copy's simulated start and end; throws like copy_to_device.
    struct HostCopy {
        uint64_t handle = 0;
        uint64_t offset = 0;
        void* host = nullptr;
        uint64_t size = 0;
        bool to_device = true;
    };
    struct CopyLane {
        unsigned nc = 0;
        std::vector<HostCopy> copies;
    };
    struct CopySpan {
        sc_core::sc_time start, end;  // simulated host time
    };
    std::vector<std::vector<CopySpan>> copy_concurrently(const std::vector<CopyLane>& lanes);
    // Simulated seconds spent waiting for DMA in this process.
    double dma_seconds() const { return dma_seconds_; }

    // An execution on core `nc`: rings its doorbell and waits for the device's notification (the
    // core's notification queue is set up on first use). Throws DriverError(ETIMEDOUT) with the
    // driver's message when none arrives within `timeout_s` of simulated time.
    NotificationQueue::Completion execute(unsigned device, unsigned nc, double timeout_s);
    // The core's queue, for its counters; null before its first execution.
    const NotificationQueue* notification_queue(unsigned device, unsigned nc) const;

    // NC_RESET + NC_RESET_READY: resets the cores of `core_map` on a device; false (with the driver's
    // message) when the reset failed.
    bool reset_cores(unsigned device, uint32_t core_map, std::string* message);
    // POST_METRIC: a metrics blob through the mailbox to the firmware, which forwards it (driver.md 6);
    // false, and a kernel log line, when the mailbox fails.
    bool post_metric(unsigned device, const std::string& metrics);
    // Reads the firmware's ECC counters through the mailbox into the host state.
    FwioClient::Result refresh_health(unsigned device);

    // Counts a model load / inference on a core in the device's sysfs counters.
    void count_model_load(unsigned device, unsigned nc);
    void count_inferences(unsigned device, unsigned nc, uint64_t inferences);

private:
    struct Device {
        unsigned index = 0;
        ProbedFunction pci;
        MappedBar bar0;
        std::vector<MemoryPool> channels;
        MemoryPool host_pool;
        std::unique_ptr<FwioClient> fwio;
        std::vector<std::unique_ptr<H2tQueue>> h2t;   // per core, set up on first use
        std::vector<std::unique_ptr<NotificationQueue>> notifications;  // per core, set up on first use
        uint64_t bounce_pa = 0;
        bool firmware_up = false;
        std::string probe_failure;
    };

    Device& at(unsigned device);
    const Device& at(unsigned device) const;
    // Probe every device in this process: PCI, BAR0, firmware up, pools and mailbox set up.
    void probe();
    bool wait_for_firmware(Device& device);
    H2tQueue& h2t(Device& device, unsigned nc);
    NotificationQueue& notifications(Device& device, unsigned nc);
    struct LaneProgress;
    void start_copy_step(LaneProgress& lane);
    void update_machine(const std::function<void(MachineRecord&)>& change);
    void account(const MemChunk& chunk, int64_t sign);
    // Device memory other live processes hold in `channel` (their process records).
    uint64_t others_device_memory(MemoryChannelId channel) const;
    void release_process_memory();

    sim::Platform& platform_;
    config::HostSpec spec_;
    HostState& state_;
    FaultSwitches faults_;
    KernelLog log_;
    ProcessSession session_;
    HostMemory host_memory_;
    std::vector<Device> devices_;
    std::map<uint64_t, MemChunk> chunks_;
    uint64_t next_handle_ = 1;
    double dma_seconds_ = 0;
};

}  // namespace nsim::driver
