#include "core/program_placement.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "isa/region_metadata.h"

namespace nsim::sim::core {
namespace {

uint64_t region_bytes(const isa::Container& program, isa::TensorLocation location) {
    uint64_t end = 0;
    for (const isa::TensorInfo& t : program.tensors) {
        if (t.location != location) continue;
        // Hostile offsets must not wrap past 2^64 into a small end that passes the memory check.
        if (t.size_bytes() > UINT64_MAX - t.offset)
            throw RunError(fmt::format("tensor '{}' at offset {:#x} with {} bytes ends beyond any memory", t.name,
                                       t.offset, t.size_bytes()));
        end = std::max(end, t.offset + t.size_bytes());
    }
    return end;
}

}  // namespace

std::vector<unsigned> ProgramPlacement::devices() const {
    std::set<unsigned> unique;
    for (const PhysicalCore& c : cores) unique.insert(c.device);
    return {unique.begin(), unique.end()};
}

const DeviceRegion& ProgramPlacement::home_region(unsigned device) const {
    for (const DeviceRegion& r : device_regions)
        if (r.device == device && r.home) return r;
    throw RunError(fmt::format("the program has no device memory region on device {}", device));
}

bool has_region_per_core(const isa::Container& program) {
    return program.metadata_value(isa::kDeviceRegionMetadata) == isa::kRegionPerCore;
}

const DeviceRegion& ProgramPlacement::region_for(unsigned core, isa::TensorRole role) const {
    const PhysicalCore& c = cores.at(core);
    if (region_per_core) return device_regions.at(core);
    if (role == isa::TensorRole::Weight)
        for (const DeviceRegion& r : device_regions)
            if (r.device == c.device && r.channel == c.memory_channel) return r;
    return home_region(c.device);
}

ProgramPlacement first_cores_of(const ProgramPlacement& placement, const isa::Container& program, uint32_t count) {
    ProgramPlacement kept = placement;
    kept.cores.resize(std::min<size_t>(count, placement.cores.size()));
    if (placement.region_per_core) {
        kept.device_regions.resize(kept.cores.size());
    } else {
        const std::vector<unsigned> devices = kept.devices();
        kept.device_regions.clear();
        for (const DeviceRegion& r : placement.device_regions)
            if (std::binary_search(devices.begin(), devices.end(), r.device)) kept.device_regions.push_back(r);
    }
    kept.code.clear();
    for (const StreamCode& code : placement.code)
        if (program.streams.at(code.stream).core < kept.cores.size()) kept.code.push_back(code);
    return kept;
}

std::vector<DeviceRegion> region_copies(const std::vector<PhysicalCore>& cores, bool region_per_core) {
    std::vector<DeviceRegion> copies;
    if (region_per_core) {
        for (const PhysicalCore& c : cores) copies.push_back({c.device, c.memory_channel, 0, true});
        return copies;
    }
    auto holds = [&](unsigned device, unsigned channel) {
        return std::any_of(copies.begin(), copies.end(),
                           [&](const DeviceRegion& r) { return r.device == device && r.channel == channel; });
    };
    std::set<unsigned> devices;
    for (const PhysicalCore& c : cores) devices.insert(c.device);
    for (unsigned device : devices)
        for (const PhysicalCore& c : cores)
            if (c.device == device && !holds(device, c.memory_channel)) {
                const bool first_on_device = copies.empty() || copies.back().device != device;
                copies.push_back({device, c.memory_channel, 0, first_on_device});
            }
    return copies;
}

std::vector<PhysicalCore> consecutive_cores(const config::ChipSpec& chip, unsigned first_core, unsigned count) {
    std::vector<PhysicalCore> cores;
    const unsigned per_device = chip.cores_per_device;
    for (unsigned i = 0; i < count; ++i) {
        const unsigned core = (first_core + i) % per_device;
        cores.push_back({(first_core + i) / per_device, core, chip.memory_channel_of_core(core)});
    }
    return cores;
}

uint32_t generation_of(const config::ChipSpec& chip) {
    const std::string& version = chip.core.version;
    if (version.size() < 2 || version[0] != 'v') return 0;
    return uint32_t(std::stoul(version.substr(1)));
}

void check_program_fits(const isa::Container& program, const config::HostSpec& spec, unsigned first_core,
                        uint64_t device_region, uint64_t host_region) {
    const uint32_t generation = generation_of(spec.chip);
    if (program.generation != generation)
        throw RunError(fmt::format("the program is for NeuronCore-v{}, {} has {} ({})", program.generation,
                                   spec.instance.name, spec.chip.core.name, spec.chip.product));
    const unsigned available = spec.instance.devices * spec.chip.cores_per_device;
    if (first_core + uint64_t(program.cores_needed) > available)
        throw RunError(fmt::format("the program needs {} NeuronCores, {} has {} ({} free from core {})",
                                   program.cores_needed, spec.instance.name, available,
                                   available > first_core ? available - first_core : 0, first_core));
    const uint64_t device_bytes = region_bytes(program, isa::TensorLocation::Device);
    const uint64_t channel = spec.chip.memory.channel_bytes;
    if (device_region + device_bytes > channel)
        throw RunError(fmt::format("the program's device tensors need {} bytes, a device-memory channel of {} holds {}",
                                   device_bytes, spec.instance.name, channel - std::min(channel, device_region)));
    const uint64_t host_bytes = region_bytes(program, isa::TensorLocation::Host);
    const uint64_t host = spec.instance.host_memory_bytes;
    if (host_region + host_bytes > host)
        throw RunError(fmt::format("the program's host tensors need {} bytes, {} has {} bytes of host memory",
                                   host_bytes, spec.instance.name, host));
}

ProgramPlacement place_program(const isa::Container& program, const Platform& platform, unsigned first_core,
                               uint64_t device_region, uint64_t host_region) {
    const config::HostSpec& spec = platform.spec();
    check_program_fits(program, spec, first_core, device_region, host_region);
    ProgramPlacement placement;
    placement.cores = consecutive_cores(spec.chip, first_core, program.cores_needed);
    placement.region_per_core = has_region_per_core(program);
    placement.device_regions = region_copies(placement.cores, placement.region_per_core);
    placement.device_region_bytes = region_bytes(program, isa::TensorLocation::Device);
    // Copies in one channel (cores sharing it, each with a region of its own) lie one after another.
    const uint64_t stride = (placement.device_region_bytes + 4095) / 4096 * 4096;
    for (size_t i = 0; i < placement.device_regions.size(); ++i) {
        DeviceRegion& r = placement.device_regions[i];
        r.offset = device_region;
        for (size_t j = 0; j < i; ++j)
            if (placement.device_regions[j].device == r.device && placement.device_regions[j].channel == r.channel)
                r.offset += stride;
        if (r.offset + placement.device_region_bytes > spec.chip.memory.channel_bytes)
            throw RunError(fmt::format("the program's device tensors need {} bytes per core, a device-memory channel of {} "
                                       "holds {}", placement.device_region_bytes, spec.instance.name,
                                       spec.chip.memory.channel_bytes));
    }
    placement.host_region = host_region;
    placement.host_region_bytes = region_bytes(program, isa::TensorLocation::Host);
    return placement;
}

void restart_rounding_streams(Platform& platform, const ProgramPlacement& placement) {
    for (const PhysicalCore& c : placement.cores) platform.devices().at(c.device)->cores().at(c.core)->rounding_stream().restart();
}

void load_tensors(const isa::Container& program, const ProgramPlacement& placement, Platform& platform) {
    restart_rounding_streams(platform, placement);
    for (const isa::TensorInfo& t : program.tensors) {
        if (t.data.empty()) continue;
        if (t.location == isa::TensorLocation::Host)
            platform.host_memory().storage().write(placement.host_region + t.offset, t.data.data(), t.data.size());
        else
            write_device_tensor(platform, placement, t, t.data.data(), t.data.size());
    }
}

SparseMemory& channel_storage(Platform& platform, unsigned device, unsigned channel) {
    return platform.devices().at(device)->memory_channels().at(channel)->storage();
}

void write_device_tensor(Platform& platform, const ProgramPlacement& placement, const isa::TensorInfo& tensor,
                         const void* data, uint64_t size) {
    for (const DeviceRegion& r : placement.device_regions)
        if (r.home || tensor.role == isa::TensorRole::Weight)
            channel_storage(platform, r.device, r.channel).write(r.offset + tensor.offset, static_cast<const uint8_t*>(data), size);
}

void read_device_tensor(Platform& platform, const ProgramPlacement& placement, const isa::TensorInfo& tensor,
                        void* data, uint64_t size) {
    const DeviceRegion& r = placement.home_region(placement.devices().front());
    channel_storage(platform, r.device, r.channel).read(r.offset + tensor.offset, static_cast<uint8_t*>(data), size);
}

void write_core_tensor(Platform& platform, const ProgramPlacement& placement, unsigned core, const isa::TensorInfo& tensor,
                       const void* data, uint64_t size) {
    const DeviceRegion& r = placement.region_for(core, tensor.role);
    channel_storage(platform, r.device, r.channel).write(r.offset + tensor.offset, static_cast<const uint8_t*>(data), size);
}

void read_core_tensor(Platform& platform, const ProgramPlacement& placement, unsigned core, const isa::TensorInfo& tensor,
                      void* data, uint64_t size) {
    const DeviceRegion& r = placement.region_for(core, tensor.role);
    channel_storage(platform, r.device, r.channel).read(r.offset + tensor.offset, static_cast<uint8_t*>(data), size);
}

}  // namespace nsim::sim::core
