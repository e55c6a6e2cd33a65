#include "neuron_driver.h"

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "firmware/fwio_protocol.h"
#include "host_time.h"
#include "platform/device_address_map.h"
#include "reset_handshake.h"
#include "sysfs_tree.h"

namespace nsim::driver {

namespace {

uint32_t bar_with_role(const config::ChipSpec& chip, const std::string& role) {
    for (const auto& bar : chip.pci.bars)
        if (bar.role == role) return bar.index;
    throw DriverError(ENODEV, fmt::format("chip {} has no {} BAR", chip.name, role));
}

bool contains(const std::vector<unsigned>& list, unsigned value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

DriverError module_not_loaded_error() { return DriverError(ENODEV, fmt::format("the {} module is not loaded", kModuleName)); }

DriverError invalid_state_error(unsigned device) { return DriverError(EINVAL, fmt::format("nd{} is in an invalid state", device)); }

NeuronDriver::NeuronDriver(sim::Platform& platform, HostState& state)
    : platform_(platform), spec_(platform.spec()), state_(state), faults_(state), log_(&state), session_(state),
      host_memory_(platform) {
    const config::ChipSpec& chip = spec_.chip;
    if (!chip.registers.present || !chip.firmware.present || !chip.driver.present)
        throw DriverError(ENODEV, fmt::format("chip {} has no 'registers'/'firmware'/'driver' description in its "
                                              "config; the driver cannot run on it", chip.name));
}

NeuronDriver::~NeuronDriver() {
    try {
        release_process_memory();
    } catch (...) {
    }
}

NeuronDriver::Device& NeuronDriver::at(unsigned device) {
    if (device >= devices_.size()) throw DriverError(ENODEV, fmt::format("nd{}: no such device", device));
    return devices_[device];
}
const NeuronDriver::Device& NeuronDriver::at(unsigned device) const {
    if (device >= devices_.size()) throw DriverError(ENODEV, fmt::format("nd{}: no such device", device));
    return devices_[device];
}

bool NeuronDriver::loaded() const {
    const auto machine = state_.read_machine();
    return machine && machine->driver_loaded;
}

bool NeuronDriver::wait_for_firmware(Device& device) {
    const config::ChipSpec& chip = spec_.chip;
    for (uint32_t poll = 0; poll < chip.driver.firmware_ready_polls; ++poll) {
        if (device.bar0.read32(chip.registers.misc_ram + chip.registers.device_id) != chip.firmware.device_id_not_ready)
            return true;
        host_time::advance_s(chip.driver.firmware_ready_interval_s);
    }
    return false;
}

void NeuronDriver::probe() {
    const config::ChipSpec& chip = spec_.chip;
    const config::DriverSpec& drv = chip.driver;
    devices_.clear();
    const auto functions = probe_pci_bus(platform_.root_complex(), uint16_t(chip.pci.vendor_id), uint16_t(chip.pci.device_id));
    if (functions.empty())
        throw DriverError(ENODEV, fmt::format("no Neuron device ({:04x}:{:04x}) found on the PCI bus", chip.pci.vendor_id,
                                              chip.pci.device_id));
    const uint32_t registers_bar = bar_with_role(chip, "registers");
    // Map BAR0 and wait for each device's firmware, which publishes its routing id; the routing id,
    // not the probe order, is the device index (driver.md 3, neuron_pci_get_device_id).
    std::vector<std::pair<uint32_t, Device>> probed;
    for (unsigned i = 0; i < functions.size(); ++i) {
        Device d;
        d.pci = functions[i];
        uint32_t routing_id = uint32_t(functions.size() + i);  // failures sort last, in probe order
        const ProbedBar* bar = d.pci.bar(registers_bar);
        if (!bar || bar->size == 0 || bar->address == 0) {
            d.probe_failure = fmt::format("{}: BAR{} cannot be mapped (-ENODEV)", d.pci.address.to_string(), registers_bar);
        } else {
            d.bar0 = MappedBar(platform_, registers_bar, bar->address, bar->size);
            d.firmware_up = wait_for_firmware(d);
            if (d.firmware_up) routing_id = d.bar0.read32(chip.registers.misc_ram + chip.registers.device_id);
            else
                d.probe_failure = fmt::format("{}: firmware not ready: device id still {:#x} after {} polls",
                                              d.pci.address.to_string(), chip.firmware.device_id_not_ready,
                                              drv.firmware_ready_polls);
        }
        for (const auto& [other, earlier] : probed)
            if (other == routing_id) d.probe_failure = fmt::format("{}: duplicate routing id {} (-ENODEV)", d.pci.address.to_string(), routing_id);
        if (!d.probe_failure.empty()) log_.print(d.probe_failure);
        probed.emplace_back(routing_id, std::move(d));
    }
    std::stable_sort(probed.begin(), probed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    const sim::DeviceAddressMap map = sim::DeviceAddressMap::for_chip(chip);
    for (auto& entry : probed) {
        devices_.push_back(std::move(entry.second));
        Device& d = devices_.back();
        const unsigned i = unsigned(devices_.size() - 1);
        d.index = i;
        // The driver's host memory for this device: a slice at the top of host memory per device.
        const uint64_t top = host_memory_.size() - uint64_t(i) * drv.host_pool_bytes;
        d.host_pool = MemoryPool(top - drv.host_pool_bytes, drv.host_pool_bytes, drv.min_alloc_bytes);
        const auto request = d.host_pool.allocate(firmware::fwio::kRequestBufferBytes, drv.min_alloc_bytes);
        const auto response = d.host_pool.allocate(firmware::fwio::kResponseBufferBytes, drv.min_alloc_bytes);
        const auto bounce = d.host_pool.allocate(drv.dma_bounce_bytes, drv.min_alloc_bytes);
        if (!request || !response || !bounce)
            throw DriverError(ENOMEM, fmt::format("nd{}: host_pool_bytes ({}) cannot hold the mailbox and bounce buffers",
                                                  i, drv.host_pool_bytes));
        d.bounce_pa = *bounce;
        d.fwio = std::make_unique<FwioClient>(d.bar0, host_memory_, chip, i, *request, *response, log_);
        for (unsigned c = 0; c < chip.memory.channels; ++c)
            d.channels.emplace_back(map.channel(c), chip.memory.channel_bytes - drv.memory_carveout_bytes, drv.min_alloc_bytes);
        d.h2t.resize(chip.cores_per_device);
        d.notifications.resize(chip.cores_per_device);
        if (d.probe_failure.empty()) d.fwio->setup();
    }
}

std::vector<std::string> NeuronDriver::modprobe() {
    const config::ChipSpec& chip = spec_.chip;
    // Held for the whole bring-up: nobody sees a device in RESET unless its resetter died.
    HostState::Lock lock = state_.lock();
    std::string damage;
    const auto previous = state_.read_machine_repairing(damage);
    if (!damage.empty()) log_.print(fmt::format("{}; rebuilt with fresh counters", damage));
    if (previous && previous->driver_loaded) {
        if (devices_.empty()) probe();
        return {};
    }
    log_.print(fmt::format("Neuron Driver Started with Version:{}", chip.driver.version));
    probe();

    MachineRecord machine;
    machine.instance = spec_.instance.name;
    machine.chip = chip.name;
    machine.driver_loaded = true;
    machine.driver_version = chip.driver.version;
    machine.load_count = previous ? previous->load_count + 1 : 1;
    std::vector<std::string> failures;
    std::vector<ResetRequest> resets;
    for (Device& d : devices_) {
        DeviceRecord record;
        record.index = d.index;
        record.bdf = d.pci.address.to_string();
        record.vendor_id = d.pci.vendor_id;
        record.device_id = d.pci.device_id;
        record.cores.resize(chip.cores_per_device);
        record.memory_ecc.assign(chip.memory.channels, 0);
        record.state = DeviceState::Reset;
        if (d.probe_failure.empty()) {
            const auto serial = d.fwio->read_registers({uint32_t(chip.registers.misc_ram + chip.registers.serial_number_lo),
                                                        uint32_t(chip.registers.misc_ram + chip.registers.serial_number_hi)},
                                                       faults_.should_fail(Fault::FailFwioRead));
            if (serial.ok) record.serial_number = uint64_t(serial.words[1]) << 32 | serial.words[0];
            else d.probe_failure = serial.message;
        }
        if (!d.probe_failure.empty()) {
            record.state = DeviceState::Invalid;
            record.reason = d.probe_failure;
            failures.push_back(d.probe_failure);
        } else {
            ResetRequest request;
            request.device = d.index;
            request.bar0 = &d.bar0;
            request.whole_device = true;
            request.request_id = chip.driver.reset_request_all;
            resets.push_back(request);
            for (CoreCounters& core : record.cores) ++core.reset_req_count;
        }
        machine.devices.push_back(record);
    }
    state_.write_machine(machine);
    publish_sysfs(state_, spec_, machine);

    // The initial full-device reset of every device, all at once (one reset worker per device).
    run_resets(resets, chip, log_);
    for (const ResetRequest& r : resets) {
        DeviceRecord& record = machine.devices[r.device];
        if (r.ok) {
            record.state = DeviceState::Ready;
            ++record.reset_count;
        } else {
            record.state = DeviceState::Invalid;
            record.reason = r.message;
            ++record.reset_fail_count;
            for (CoreCounters& core : record.cores) ++core.reset_fail_count;
            failures.push_back(r.message);
        }
    }
    state_.write_machine(machine);
    publish_sysfs(state_, spec_, machine);
    return failures;
}

void NeuronDriver::attach() {
    {
        HostState::Lock lock = state_.lock();
        const auto machine = state_.read_machine();
        if (!machine) {
            const auto failures = modprobe();
            (void)failures;  // recorded in the device states
            return;
        }
        if (!machine->driver_loaded) throw module_not_loaded_error();
    }
    probe();
}

void NeuronDriver::rmmod() {
    HostState::Lock lock = state_.lock();
    auto machine = state_.read_machine();
    // A host nobody has used yet boots now, with its driver loaded, as an instance does.
    if (!machine) {
        modprobe();
        machine = state_.read_machine();
    }
    if (!machine || !machine->driver_loaded) throw DriverError(ENOENT, "ERROR: Module neuron is not currently loaded");
    for (const ProcessRecord& process : state_.live_processes())
        if (!process.open_devices.empty()) throw DriverError(EBUSY, "ERROR: Module neuron is in use");
    // neuron_module_exit: debugfs goes (its fault attributes with it), then each device is removed:
    // reset worker stopped, DMA rings and memory pools freed, device node and sysfs deleted.
    for (const FaultInfo& fault : all_faults())
        if (fault.driver) state_.write_fault(fault.name, 0);
    for (const DeviceRecord& device : machine->devices) log_.print(fmt::format("nd{}: device removed", device.index));
    remove_sysfs(state_);
    machine->driver_loaded = false;
    state_.write_machine(*machine);
    log_.print("Neuron Driver unloaded");
    chunks_.clear();
    devices_.clear();
}

DeviceState NeuronDriver::device_state(unsigned device) const {
    const Device& d = at(device);
    if (!d.probe_failure.empty()) return DeviceState::Invalid;
    const auto machine = state_.read_machine();
    if (!machine || !machine->driver_loaded || device >= machine->devices.size()) return DeviceState::Invalid;
    return machine->devices[device].state;
}

std::string NeuronDriver::device_reason(unsigned device) const {
    const Device& d = at(device);
    if (!d.probe_failure.empty()) return d.probe_failure;
    const auto machine = state_.read_machine();
    if (!machine || device >= machine->devices.size()) return "";
    return machine->devices[device].reason;
}

bool NeuronDriver::is_open(unsigned device) const { return contains(session_.record().open_devices, device); }

void NeuronDriver::open(unsigned device) {
    HostState::Lock lock = state_.lock();
    if (!loaded()) throw module_not_loaded_error();
    at(device);
    const DeviceState state = device_state(device);
    if (state != DeviceState::Ready) {
        // RESET seen from outside the bring-up means its resetter died mid-way: the device is unusable.
        const DriverError refusal = invalid_state_error(device);
        log_.print(refusal.what());
        throw refusal;
    }
    if (is_open(device)) return;
    unsigned others = 0;
    for (const ProcessRecord& p : state_.live_processes())
        if (p.pid != session_.identity().pid && contains(p.open_devices, device)) ++others;
    if (others >= spec_.chip.driver.max_processes_per_device)
        throw DriverError(EBUSY, fmt::format("nd{}: {} processes already have the device open", device, others));
    session_.update([&](ProcessRecord& r) { r.open_devices.push_back(device); });
    log_.print(fmt::format("npid_attach: pid={}, slot={}", session_.identity().pid, others));
}

void NeuronDriver::close(unsigned device) {
    if (!is_open(device)) return;
    // The process's memory on the device goes with its last handle (CUR_PROCESS lifespan).
    std::vector<uint64_t> mine;
    for (const auto& [handle, chunk] : chunks_)
        if (chunk.device == device && chunk.lifespan != Lifespan::Device) mine.push_back(handle);
    for (uint64_t handle : mine) mem_free(handle);
    session_.update([&](ProcessRecord& r) {
        r.open_devices.erase(std::remove(r.open_devices.begin(), r.open_devices.end(), device), r.open_devices.end());
    });
    log_.print(fmt::format("npid_detach: pid={}, slot=0", session_.identity().pid));
}

void NeuronDriver::release_process_memory() {
    std::vector<unsigned> open = session_.record().open_devices;
    for (unsigned device : open) close(device);
}

unsigned NeuronDriver::channel_of_core(unsigned nc) const { return spec_.chip.memory_channel_of_core(nc); }

void NeuronDriver::account(const MemChunk& chunk, int64_t sign) {
    session_.update([&](ProcessRecord& r) {
        if (chunk.host) r.host_memory_bytes += uint64_t(sign * int64_t(chunk.size));
        else r.device_memory_bytes[{chunk.device, chunk.channel}] += uint64_t(sign * int64_t(chunk.size));
    });
}

uint64_t NeuronDriver::others_device_memory(MemoryChannelId channel) const {
    uint64_t bytes = 0;
    for (const ProcessRecord& p : state_.live_processes())
        if (p.pid != session_.identity().pid)
            if (auto it = p.device_memory_bytes.find(channel); it != p.device_memory_bytes.end()) bytes += it->second;
    return bytes;
}

uint64_t NeuronDriver::mem_alloc(unsigned device, uint64_t size, unsigned channel, unsigned nc, Lifespan lifespan, bool host) {
    Device& d = at(device);
    if (!is_open(device))
        throw DriverError(EACCES, fmt::format("nd{}: memory allocation by a process that has not opened the device", device));
    if (!host && channel >= d.channels.size())
        throw DriverError(EINVAL, fmt::format("nd{}: no memory channel {}", device, channel));
    MemoryPool& pool = host ? d.host_pool : d.channels[channel];
    // The real driver's pools live in the kernel, shared by every process; here each process has its
    // own copy of the machine, so what the other live processes hold in this channel counts as taken.
    HostState::Lock lock = state_.lock();
    const uint64_t others = host ? 0 : others_device_memory({device, channel});
    const uint64_t occupied = pool.occupied() + others, available = pool.total() - std::min(pool.total(), occupied);
    const bool injected = faults_.should_fail(Fault::FailMcAlloc);
    const auto address = injected || pool.rounded(size) > available ? std::nullopt
                                                                    : pool.allocate(size, spec_.chip.driver.min_alloc_bytes);
    if (!address) {
        const std::string message = fmt::format("mc_alloc: {} mempool [{}:{}] total {} occupied {} needed {} available {}",
                                                host ? "host" : "device", host ? device : channel, 0, pool.total(),
                                                occupied, pool.rounded(size), available);
        log_.print(message);
        throw DriverError(ENOMEM, "neuron:" + message);
    }
    MemChunk chunk;
    chunk.handle = next_handle_++;
    chunk.device = device;
    chunk.host = host;
    chunk.channel = host ? 0 : channel;
    chunk.nc = nc;
    chunk.address = *address;
    chunk.size = pool.rounded(size);
    chunk.lifespan = lifespan;
    chunks_[chunk.handle] = chunk;
    account(chunk, +1);
    return chunk.handle;
}

void NeuronDriver::mem_free(uint64_t handle) {
    auto it = chunks_.find(handle);
    if (it == chunks_.end()) throw DriverError(EINVAL, fmt::format("no memory handle {}", handle));
    const MemChunk chunk = it->second;
    Device& d = at(chunk.device);
    (chunk.host ? d.host_pool : d.channels[chunk.channel]).free(chunk.address);
    chunks_.erase(it);
    account(chunk, -1);
}

const MemChunk& NeuronDriver::chunk(uint64_t handle) const {
    auto it = chunks_.find(handle);
    if (it == chunks_.end()) throw DriverError(EINVAL, fmt::format("no memory handle {}", handle));
    return it->second;
}

uint64_t NeuronDriver::bus_address(const MemChunk& chunk) const {
    return chunk.host ? spec_.chip.registers.pci_host_base + chunk.address : chunk.address;
}

NotificationQueue& NeuronDriver::notifications(Device& d, unsigned nc) {
    const config::ChipSpec& chip = spec_.chip;
    if (nc >= d.notifications.size()) throw DriverError(EINVAL, fmt::format("nd{}: no core {}", d.index, nc));
    if (!d.notifications[nc]) {
        // The application maps the queue to poll it (driver.md 9).
        if (faults_.should_fail(Fault::FailNcMmap)) {
            const std::string message = fmt::format("nd{}: mmap of the nc{} notification queue failed", d.index, nc);
            log_.print(message);
            throw DriverError(EFAULT, message);
        }
        const uint64_t bytes = chip.driver.notification_queue_bytes;
        const auto queue = d.host_pool.allocate(bytes, bytes);
        if (!queue) throw DriverError(ENOMEM, fmt::format("nd{}: no host memory for the nc{} notification queue", d.index, nc));
        d.notifications[nc] = std::make_unique<NotificationQueue>(d.bar0, host_memory_, chip, d.index, nc, *queue);
        d.notifications[nc]->init();
    }
    return *d.notifications[nc];
}

NotificationQueue::Completion NeuronDriver::execute(unsigned device, unsigned nc, double timeout_s) {
    Device& d = at(device);
    NotificationQueue::Completion completion = notifications(d, nc).execute(timeout_s);
    if (!completion.arrived) {
        const std::string message = fmt::format("execution completion timeout on nd{} nc{} after {:g} s", device, nc, timeout_s);
        log_.print(message);
        throw DriverError(ETIMEDOUT, message);
    }
    return completion;
}

const NotificationQueue* NeuronDriver::notification_queue(unsigned device, unsigned nc) const {
    const Device& d = at(device);
    return nc < d.notifications.size() ? d.notifications[nc].get() : nullptr;
}

H2tQueue& NeuronDriver::h2t(Device& d, unsigned nc) {
    const config::ChipSpec& chip = spec_.chip;
    if (nc >= d.h2t.size()) throw DriverError(EINVAL, fmt::format("nd{}: no core {}", d.index, nc));
    if (!d.h2t[nc]) {
        const auto ring = d.host_pool.allocate(H2tQueue::ring_bytes(chip), chip.registers.udma.ring_alignment);
        if (!ring) throw DriverError(ENOMEM, fmt::format("nd{}: no host memory for the nc{} DMA ring", d.index, nc));
        if (chip.driver.h2t_queue >= chip.core.dma_queues_per_engine)
            throw DriverError(EINVAL, fmt::format("h2t_queue {} exceeds the engine's {} queues", chip.driver.h2t_queue,
                                                  chip.core.dma_queues_per_engine));
        const unsigned engine = nc * chip.core.dma_engines + chip.core.dma_engines - 1;
        d.h2t[nc] = std::make_unique<H2tQueue>(d.bar0, host_memory_, chip, d.index, engine, chip.driver.h2t_queue, *ring);
        d.h2t[nc]->init();
    }
    return *d.h2t[nc];
}

void NeuronDriver::update_machine(const std::function<void(MachineRecord&)>& change) {
    HostState::Lock lock = state_.lock();
    auto machine = state_.read_machine();
    if (!machine) return;
    change(*machine);
    state_.write_machine(*machine);
    publish_sysfs(state_, spec_, *machine);
}

bool NeuronDriver::reset_cores(unsigned device, uint32_t core_map, std::string* message) {
    Device& d = at(device);
    ResetRequest request;
    request.device = device;
    request.bar0 = &d.bar0;
    request.whole_device = false;
    request.core_map = core_map;
    request.request_id = uint32_t(session_.identity().pid);
    auto cores_of = [&](const std::function<void(CoreCounters&)>& f) {
        update_machine([&](MachineRecord& m) {
            if (device >= m.devices.size()) return;
            for (unsigned c = 0; c < m.devices[device].cores.size(); ++c)
                if (core_map >> c & 1) f(m.devices[device].cores[c]);
        });
    };
    cores_of([](CoreCounters& c) { ++c.reset_req_count; });
    std::vector<ResetRequest> requests{request};
    run_resets(requests, spec_.chip, log_);
    if (!requests[0].ok) {
        cores_of([](CoreCounters& c) { ++c.reset_fail_count; });
        if (message) *message = requests[0].message;
        return false;
    }
    // ndmar_init_ncs: the reset cores' queues start afresh.
    for (unsigned c = 0; c < d.h2t.size(); ++c)
        if ((core_map >> c & 1) && d.h2t[c]) d.h2t[c]->init();
    // NQs are destroyed per NC on reset (driver.md 9): they start empty again.
    for (unsigned c = 0; c < d.notifications.size(); ++c)
        if ((core_map >> c & 1) && d.notifications[c]) d.notifications[c]->init();
    return true;
}

bool NeuronDriver::post_metric(unsigned device, const std::string& metrics) {
    Device& d = at(device);
    const std::vector<uint8_t> blob(metrics.begin(), metrics.end());
    const FwioClient::Result result = d.fwio->post_metric(blob, faults_.should_fail(Fault::FailFwioPostMetric));
    if (!result.ok) log_.print(fmt::format("nd{}: failed to post metrics: {}", device, result.message));
    return result.ok;
}

FwioClient::Result NeuronDriver::refresh_health(unsigned device) {
    Device& d = at(device);
    const config::RegisterMapSpec& map = spec_.chip.registers;
    std::vector<uint32_t> offsets{uint32_t(map.misc_ram + map.sram_ecc)};
    for (unsigned c = 0; c < spec_.chip.memory.channels; ++c) offsets.push_back(uint32_t(map.misc_ram + map.memory_ecc + 4 * c));
    FwioClient::Result result = d.fwio->read_registers(offsets, faults_.should_fail(Fault::FailFwioRead));
    if (!result.ok) return result;
    const uint32_t invalid = spec_.chip.firmware.ecc_invalid;
    update_machine([&](MachineRecord& m) {
        if (device >= m.devices.size()) return;
        DeviceRecord& r = m.devices[device];
        r.sram_ecc = result.words[0] == invalid ? 0 : result.words[0];
        r.memory_ecc.assign(result.words.begin() + 1, result.words.end());
        for (uint32_t& word : r.memory_ecc)
            if (word == invalid) word = 0;
    });
    return result;
}

void NeuronDriver::count_model_load(unsigned device, unsigned nc) {
    update_machine([&](MachineRecord& m) {
        if (device < m.devices.size() && nc < m.devices[device].cores.size()) ++m.devices[device].cores[nc].model_load_count;
    });
}

void NeuronDriver::count_inferences(unsigned device, unsigned nc, uint64_t inferences) {
    update_machine([&](MachineRecord& m) {
        if (device < m.devices.size() && nc < m.devices[device].cores.size())
            m.devices[device].cores[nc].inference_count += inferences;
    });
}

}  // namespace nsim::driver
