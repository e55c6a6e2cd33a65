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

void Container::canonicalize() {
    std::stable_sort(streams.begin(), streams.end(), [](const InstructionStream& a, const InstructionStream& b) {
        return std::make_tuple(a.graph, a.core, uint8_t(a.engine), a.queue) <
               std::make_tuple(b.graph, b.core, uint8_t(b.engine), b.queue);
    });
    // The writer puts metadata, tensor table, semaphore names (and graph names) first, then the streams in order.
    const uint32_t first_stream_section = graphs.empty() ? 3 : 4;
    for (size_t i = 0; i < streams.size(); ++i) streams[i].section = first_stream_section + uint32_t(i);
}

std::optional<uint32_t> Container::graph_index(const std::string& name) const {
    if (name.empty()) return 0;
    const auto it = std::find(graphs.begin(), graphs.end(), name);
    if (it == graphs.end()) return std::nullopt;
    return uint32_t(it - graphs.begin());
}

std::string Container::graph_list() const {
    std::string list;
    for (const std::string& g : graphs) list += (list.empty() ? "'" : ", '") + g + "'";
    return list.empty() ? "none" : list;
}

std::string Container::metadata_value(const std::string& key) const {
    for (const auto& [k, v] : metadata)
        if (k == key) return v;
    return "";
}

std::vector<bool> tensors_of_graph(const Container& c, uint32_t graph) {
    std::vector<bool> used(c.tensors.size(), false);
    for (const InstructionStream& s : c.streams) {
        if (s.graph != graph) continue;
        for (const Instruction& inst : s.instructions) {
            const OpcodeInfo& op = info(inst.opcode);
            for (size_t f = 0; f < op.field_count; ++f) {
                if (op.fields[f].kind != FieldKind::AccessPattern) continue;
                const AccessPattern& ap = inst.ap(f);
                if ((ap.space == MemorySpace::Dram || ap.space == MemorySpace::Host) && ap.tensor < used.size())
                    used[ap.tensor] = true;
            }
        }
    }
    return used;
}

std::vector<const InstructionStream*> core_streams(const Container& c, uint32_t graph, uint32_t core) {
    std::vector<const InstructionStream*> streams;
    for (const InstructionStream& s : c.streams)
        if (s.graph == graph && s.core == core && !s.instructions.empty()) streams.push_back(&s);
    std::sort(streams.begin(), streams.end(), [](const InstructionStream* a, const InstructionStream* b) {
        return std::make_tuple(a->engine, a->queue) < std::make_tuple(b->engine, b->queue);
    });
    return streams;
}

bool same_streams(const std::vector<const InstructionStream*>& a, const std::vector<const InstructionStream*>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i]->engine != b[i]->engine || a[i]->queue != b[i]->queue || a[i]->instructions != b[i]->instructions) return false;
    return true;
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
