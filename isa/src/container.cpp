#include "isa/container.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace nsim::isa {
namespace {
constexpr std::string_view role_names[] = {"input", "output", "weight", "scratch", "state"};
constexpr std::string_view location_names[] = {"device", "host"};
}  // namespace

std::string_view name_of(TensorRole r) { return size_t(r) < std::size(role_names) ? role_names[size_t(r)] : "?"; }
std::string_view name_of(TensorLocation l) {
    return size_t(l) < std::size(location_names) ? location_names[size_t(l)] : "?";
}
bool is_valid_role(uint32_t raw) { return raw < std::size(role_names); }
bool is_valid_location(uint32_t raw) { return raw < std::size(location_names); }

std::optional<TensorRole> role_from_name(std::string_view n) {
    for (size_t i = 0; i < std::size(role_names); ++i)
        if (role_names[i] == n) return TensorRole(i);
    return std::nullopt;
}
std::optional<TensorLocation> location_from_name(std::string_view n) {
    for (size_t i = 0; i < std::size(location_names); ++i)
        if (location_names[i] == n) return TensorLocation(i);
    return std::nullopt;
}

uint64_t TensorInfo::size_bytes() const {
    constexpr uint64_t saturated = std::numeric_limits<uint64_t>::max();
    uint64_t bytes = size_in_bytes(dtype);
    for (uint64_t d : shape) {
        if (d != 0 && bytes > saturated / d) return saturated;
        bytes *= d;
    }
    return bytes;
}

bool TensorInfo::operator==(const TensorInfo& o) const {
    return name == o.name && role == o.role && dtype == o.dtype && location == o.location && shape == o.shape &&
           offset == o.offset && data == o.data;
}

// The writer puts metadata, tensor table and semaphore names first, then the streams in order.
constexpr uint32_t kFirstStreamSection = 3;

void Container::canonicalize() {
    std::stable_sort(streams.begin(), streams.end(), [](const InstructionStream& a, const InstructionStream& b) {
        return std::make_tuple(a.core, uint8_t(a.engine), a.queue) < std::make_tuple(b.core, uint8_t(b.engine), b.queue);
    });
    for (size_t i = 0; i < streams.size(); ++i) streams[i].section = kFirstStreamSection + uint32_t(i);
}

std::string Container::metadata_value(const std::string& key) const {
    for (const auto& [k, v] : metadata)
        if (k == key) return v;
    return "";
}

std::string queue_name(Engine engine, uint8_t queue) {
    std::string name(name_of(engine));
    if (engine == Engine::Dma) name += std::to_string(queue);
    return name;
}

std::string describe(const InstructionStream& s) {
    return "core " + std::to_string(s.core) + " queue " + queue_name(s.engine, s.queue);
}

}  // namespace nsim::isa
