#include "neuron-ls/host_selection.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/tool_main.h"
#include "host_state.h"

namespace nsim::tools {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> hosts_in(const fs::path& home) {
    std::vector<std::string> hosts;
    std::error_code error;
    for (fs::directory_iterator it(home / "hosts", error), end; !error && it != end; it.increment(error))
        if (it->is_directory()) hosts.push_back(it->path().filename().string());
    std::sort(hosts.begin(), hosts.end());
    return hosts;
}

}  // namespace

std::string select_host(const fs::path& home, const std::string& named, const std::vector<std::string>& known_instances) {
    if (!named.empty()) return named;
    const std::vector<std::string> hosts = hosts_in(home);
    if (hosts.empty())
        throw UserError(fmt::format("no simulated host in {} yet; pick one with --instance NAME (one of: {})",
                                    home.string(), fmt::join(known_instances, ", ")));
    if (hosts.size() == 1) return hosts.front();
    std::vector<std::string> busy;
    for (const std::string& host : hosts)
        if (!driver::HostState(home, host).live_processes().empty()) busy.push_back(host);
    if (busy.size() == 1) return busy.front();
    throw UserError(fmt::format("{} holds several simulated hosts ({}); pick one with --instance NAME",
                                home.string(), fmt::join(hosts, ", ")));
}

}  // namespace nsim::tools
