#include "neuron-top/top_session.h"

#include <algorithm>

#include "neuron-ls/device_listing.h"
#include "neuron-top/memory_tree.h"

namespace nsim::tools {

TopSession::TopSession(std::filesystem::path home, config::HostSpec spec) : home_(std::move(home)), spec_(std::move(spec)) {
    // Opened like the real tool's first screen: the first device and its cores.
    view_.expanded.insert("nd0");
    for (uint32_t nc = 0; nc < spec_.chip.cores_per_device; ++nc) view_.expanded.insert("nd0/nc" + std::to_string(nc));
}

std::vector<int> TopSession::selected_pids() const {
    if (view_.pid != 0) return {view_.pid};
    return tab_pids(host_);
}

size_t TopSession::tree_rows() const { return memory_tree(host_, view_.pid, view_.expanded).size(); }

void TopSession::refresh() {
    host_ = read_host_snapshot(home_, spec_);
    const auto pids = tab_pids(host_);
    if (view_.pid != 0 && std::find(pids.begin(), pids.end(), view_.pid) == pids.end()) view_.pid = 0;
    const CpuSample sample = sample_cpu(pids);
    if (last_sample_) usage_ = cpu_usage(*last_sample_, sample, selected_pids());
    last_sample_ = sample;
    view_.selected_row = std::min(view_.selected_row, tree_rows() ? tree_rows() - 1 : 0);
}

Frame TopSession::frame(size_t width) const {
    if (!host_.driver_loaded) return no_device_frame(host_, no_device_message(host_), width);
    return top_frame(host_, view_, usage_, width);
}

bool TopSession::handle(TopKey key, int tab) {
    std::vector<int> tabs = tab_pids(host_);
    tabs.insert(tabs.begin(), 0);
    const size_t current = size_t(std::find(tabs.begin(), tabs.end(), view_.pid) - tabs.begin());
    const auto rows = memory_tree(host_, view_.pid, view_.expanded);
    auto set_open = [&](bool open) {
        if (view_.selected_row >= rows.size() || !rows[view_.selected_row].expandable) return;
        const std::string& key_of_row = rows[view_.selected_row].key;
        if (open) view_.expanded.insert(key_of_row);
        else view_.expanded.erase(key_of_row);
    };
    switch (key) {
        case TopKey::Quit: return false;
        case TopKey::Up:
            if (view_.selected_row > 0) --view_.selected_row;
            break;
        case TopKey::Down:
            if (view_.selected_row + 1 < rows.size()) ++view_.selected_row;
            break;
        case TopKey::Left: set_open(false); break;
        case TopKey::Right: set_open(true); break;
        case TopKey::Toggle:
            if (view_.selected_row < rows.size()) set_open(!rows[view_.selected_row].expanded);
            break;
        case TopKey::ToggleAll: {
            const auto all = all_tree_keys(host_);
            view_.expanded = view_.expanded.size() == all.size() ? std::set<std::string>{} : all;
            break;
        }
        case TopKey::PreviousTab: view_.pid = tabs[(current + tabs.size() - 1) % tabs.size()]; break;
        case TopKey::NextTab: view_.pid = tabs[(current + 1) % tabs.size()]; break;
        case TopKey::Tab1to9:
            if (tab >= 0 && size_t(tab) < tabs.size()) view_.pid = tabs[size_t(tab)];
            break;
        case TopKey::ToggleFlops: view_.flops = !view_.flops; break;
        case TopKey::Other: break;
    }
    view_.selected_row = std::min(view_.selected_row, tree_rows() ? tree_rows() - 1 : 0);
    return true;
}

}  // namespace nsim::tools
