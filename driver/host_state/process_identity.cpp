#include "process_identity.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

namespace nsim::driver {
namespace {

// 0 when the process does not exist (or /proc is unreadable).
uint64_t start_time_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return 0;
    // The command (field 2) may contain spaces and parentheses; the fields after it follow the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    // Field 3 (state) is the first after ')'; the start time is field 22.
    for (int index = 3; index <= 22 && fields >> field; ++index)
        if (index == 22) return std::stoull(field);
    return 0;
}

std::string command_of_self() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!raw.empty() && raw.back() == '\0') raw.pop_back();
    for (char& c : raw)
        if (c == '\0') c = ' ';
    return raw;
}

}  // namespace

ProcessIdentity ProcessIdentity::self() {
    ProcessIdentity me;
    me.pid = int(getpid());
    me.start_time = start_time_of(me.pid);
    me.command = command_of_self();
    return me;
}

ProcessRecord ProcessIdentity::record() const {
    ProcessRecord record;
    record.pid = pid;
    record.start_time = start_time;
    record.command = command;
    return record;
}

bool ProcessIdentity::pid_running(int pid) {
    if (pid <= 0) return false;
    if (kill(pid, 0) != 0 && errno != EPERM) return false;
    // A zombie has exited: it holds nothing any more.
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (in && std::getline(in, text)) {
        const auto close = text.rfind(')');
        if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') return false;
    }
    return true;
}

bool ProcessIdentity::alive() const { return pid_running(pid) && start_time_of(pid) == start_time; }

}  // namespace nsim::driver
