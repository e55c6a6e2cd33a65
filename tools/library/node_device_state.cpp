#include "library/node_device_state.h"

#include <algorithm>

#include "core/program_placement.h"

namespace nsim::library {
namespace {

const sim::core::ProgramPlacement& placement_of(const Session& session) { return session.model().loaded.placement; }

sim::SparseMemory& region_memory(Session& session, const sim::core::DeviceRegion& region) {
    return sim::core::channel_storage(session.runtime().platform(), region.device, region.channel);
}

sim::RoundingStream& rounding_stream(Session& session, const sim::core::PhysicalCore& core) {
    return session.runtime().platform().devices().at(core.device)->cores().at(core.core)->rounding_stream();
}

}  // namespace

std::vector<uint8_t> read_core_region(Session& session, uint32_t core, uint64_t offset, uint64_t size) {
    const sim::core::DeviceRegion& region = placement_of(session).region_for(core, isa::TensorRole::Scratch);
    std::vector<uint8_t> bytes(size);
    region_memory(session, region).read(region.offset + offset, bytes.data(), size);
    return bytes;
}

void write_core_region(Session& session, uint32_t core, uint64_t offset, const std::vector<uint8_t>& bytes) {
    const sim::core::DeviceRegion& region = placement_of(session).region_for(core, isa::TensorRole::Scratch);
    region_memory(session, region).write(region.offset + offset, bytes.data(), bytes.size());
}

// The instructions' code in device memory lies outside the region: the same for every node.
NodeDeviceStates::NodeDeviceStates(Session& session, uint32_t nodes) : session_(session) {
    saved_.assign(nodes, capture());
}

void NodeDeviceStates::activate(uint32_t node) {
    if (node == active_) return;
    saved_.at(active_) = capture();
    restore(saved_.at(node));
    active_ = node;
}

NodeDeviceStates::State NodeDeviceStates::capture() const {
    const sim::core::ProgramPlacement& p = placement_of(session_);
    State s;
    for (const sim::core::DeviceRegion& region : p.device_regions) {
        std::vector<uint8_t>& bytes = s.regions.emplace_back(p.device_region_bytes);
        region_memory(session_, region).read(region.offset, bytes.data(), bytes.size());
    }
    for (const sim::core::PhysicalCore& core : p.cores) s.rounding.push_back(rounding_stream(session_, core));
    return s;
}

void NodeDeviceStates::restore(const State& s) {
    const sim::core::ProgramPlacement& p = placement_of(session_);
    // Most of a node's state (parameters, optimizer states, code-sized constants) is the same on
    // every node: only the pieces that differ are written.
    constexpr uint64_t kPiece = uint64_t(64) << 10;
    for (size_t i = 0; i < p.device_regions.size(); ++i) {
        sim::SparseMemory& memory = region_memory(session_, p.device_regions[i]);
        const std::vector<uint8_t>& bytes = s.regions.at(i);
        for (uint64_t at = 0; at < bytes.size(); at += kPiece) {
            const uint64_t size = std::min<uint64_t>(kPiece, bytes.size() - at);
            const uint64_t address = p.device_regions[i].offset + at;
            if (!memory.holds(address, bytes.data() + at, size)) memory.write(address, bytes.data() + at, size);
        }
    }
    for (size_t i = 0; i < p.cores.size(); ++i) rounding_stream(session_, p.cores[i]) = s.rounding.at(i);
}

}  // namespace nsim::library
