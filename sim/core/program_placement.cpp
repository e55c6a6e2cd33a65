#include "core/program_placement.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace nsim::sim::core {
namespace {

uint64_t region_bytes(const isa::Container& program, isa::TensorLocation location) {
    uint64_t end = 0;
    for (const isa::TensorInfo& t : program.tensors)
        if (t.location == location) end = std::max(end, t.offset + t.size_bytes());
    return end;
}

}  // namespace

std::vector<unsigned> ProgramPlacement::devices() const {
    std::set<unsigned> unique;
    for (const PhysicalCore& c : cores) unique.insert(c.device);
    return {unique.begin(), unique.end()};
}

uint32_t generation_of(const config::ChipSpec& chip) {
    const std::string& version = chip.core.version;
    if (version.size() < 2 || version[0] != 'v') return 0;
    return uint32_t(std::stoul(version.substr(1)));
}

ProgramPlacement place_program(const isa::Container& program, const Platform& platform, unsigned first_core,
                               uint64_t device_region, uint64_t host_region) {
    const config::HostSpec& spec = platform.spec();
    const uint32_t generation = generation_of(spec.chip);
    if (program.generation != generation)
        throw RunError(fmt::format("the program is for NeuronCore-v{}, {} has {} ({})", program.generation,
                                   spec.instance.name, spec.chip.core.name, spec.chip.product));
    const unsigned per_device = spec.chip.cores_per_device;
    const unsigned available = unsigned(platform.devices().size()) * per_device;
    if (first_core + uint64_t(program.cores_needed) > available)
        throw RunError(fmt::format("the program needs {} NeuronCores, {} has {} ({} free from core {})",
                                   program.cores_needed, spec.instance.name, available,
                                   available > first_core ? available - first_core : 0, first_core));

    ProgramPlacement placement;
    for (unsigned i = 0; i < program.cores_needed; ++i)
        placement.cores.push_back({(first_core + i) / per_device, (first_core + i) % per_device});
    placement.device_region = device_region;
    placement.device_region_bytes = region_bytes(program, isa::TensorLocation::Device);
    placement.host_region = host_region;
    placement.host_region_bytes = region_bytes(program, isa::TensorLocation::Host);

    const uint64_t channel = spec.chip.memory.channel_bytes;
    if (device_region + placement.device_region_bytes > channel)
        throw RunError(fmt::format("the program's device tensors need {} bytes, a device-memory channel of {} holds {}",
                                   placement.device_region_bytes, spec.instance.name, channel - std::min(channel, device_region)));
    const uint64_t host = spec.instance.host_memory_bytes;
    if (host_region + placement.host_region_bytes > host)
        throw RunError(fmt::format("the program's host tensors need {} bytes, {} has {} bytes of host memory",
                                   placement.host_region_bytes, spec.instance.name, host));
    return placement;
}

void load_tensors(const isa::Container& program, const ProgramPlacement& placement, Platform& platform) {
    for (const isa::TensorInfo& t : program.tensors) {
        if (t.data.empty()) continue;
        if (t.location == isa::TensorLocation::Host) {
            platform.host_memory().storage().write(placement.host_region + t.offset, t.data.data(), t.data.size());
            continue;
        }
        for (unsigned device : placement.devices())
            platform.devices()[device]->memory_channels()[0]->storage().write(placement.device_region + t.offset,
                                                                               t.data.data(), t.data.size());
    }
}

}  // namespace nsim::sim::core
