// A tool left running while a test watches it from other processes (neuron-top, neuron-monitor),
// and the polling the watching needs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <thread>

namespace nsim::test {

// A shell command in its own process group, killed (the whole group) when the test is done with it.
class Background {
public:
    // `exports`: "NAME=value ..." for the command's environment.
    Background(const std::string& exports, const std::string& command);
    ~Background();
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

private:
    pid_t pid_ = -1;
};

// Waits (polling) until `ready` holds; the run under watch starts in the background, and a loaded
// machine starts it late. The bound only keeps a broken build from hanging the suite.
template <typename Ready>
bool eventually(Ready ready) {
    for (int attempt = 0; attempt < 3000; ++attempt) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

}  // namespace nsim::test
