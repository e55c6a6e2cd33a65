// neuron-top's state between screens: the host it watches, the last /proc sample (utilisation is a
// difference of two), the selected tab and the tree's shape; and what each key does to them.
#pragma once

#include <filesystem>
#include <optional>

#include "config/host_spec.h"
#include "neuron-ls/host_snapshot.h"
#include "neuron-top/cpu_usage.h"
#include "neuron-top/frame.h"
#include "neuron-top/top_screen.h"

namespace nsim::tools {

enum class TopKey { Quit, Up, Down, Left, Right, Toggle, ToggleAll, PreviousTab, NextTab, Tab1to9, ToggleFlops, Other };

class TopSession {
public:
    TopSession(std::filesystem::path home, config::HostSpec spec);

    // Re-reads the host state and /proc.
    void refresh();
    Frame frame(size_t width) const;
    // `tab` is 0-based, for TopKey::Tab1to9. Returns false on Quit.
    bool handle(TopKey key, int tab = 0);

    TopView& view() { return view_; }
    const HostSnapshot& host() const { return host_; }

private:
    std::vector<int> selected_pids() const;
    size_t tree_rows() const;

    std::filesystem::path home_;
    config::HostSpec spec_;
    HostSnapshot host_;
    std::optional<CpuSample> last_sample_;
    CpuUsage usage_;
    TopView view_;
};

}  // namespace nsim::tools
