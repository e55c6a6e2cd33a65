#include "neuron-ls/topology_diagram.h"

#include <algorithm>

#include <fmt/format.h>

namespace nsim::tools {
namespace {

constexpr const char* kLink = "◄––►";
constexpr size_t kCellColumns = 9;     // "[ 0 ]" and a link, in screen columns
constexpr size_t kCentre = 6;          // column of a device's centre in its row

bool linked(const HostSnapshot& host, unsigned a, unsigned b) {
    if (a >= host.devices.size()) return false;
    const auto& peers = host.devices[a].connected_to;
    return std::find(peers.begin(), peers.end(), b) != peers.end();
}

// One character at each device's centre column: "      *        *" and the like.
std::string column_marks(size_t columns, const char* mark) {
    std::string line;
    for (size_t c = 0; c < columns; ++c) line += std::string(c == 0 ? kCentre : kCellColumns - 1, ' ') + mark;
    return line + "\n";
}

}  // namespace

std::string topology_diagram(const HostSnapshot& host) {
    const auto& instance = host.spec.instance;
    const size_t count = host.devices.size();
    const bool torus = instance.topology == "torus" && instance.topology_shape.size() == 2 &&
                       size_t(instance.topology_shape[0]) * instance.topology_shape[1] == count;
    const size_t columns = torus ? instance.topology_shape[1] : count;
    const size_t rows = torus ? instance.topology_shape[0] : (count ? 1 : 0);
    std::string out = "Neuron Device Topology\n";
    if (torus) out += column_marks(columns, "*") + column_marks(columns, "│") + column_marks(columns, "▼");
    for (size_t r = 0; r < rows; ++r) {
        std::string line = torus ? "*––►" : "    ";
        for (size_t c = 0; c < columns; ++c) {
            const unsigned device = unsigned(r * columns + c);
            line += fmt::format("[{:>2} ]", device);
            if (c + 1 < columns) line += linked(host, device, device + 1) ? kLink : "    ";
        }
        if (torus) line += "◄––*";
        out += line + "\n";
        if (torus) {
            const bool last = r + 1 == rows;
            out += column_marks(columns, "▲") + column_marks(columns, "│") + column_marks(columns, last ? "*" : "▼");
        }
    }
    return out;
}

}  // namespace nsim::tools
