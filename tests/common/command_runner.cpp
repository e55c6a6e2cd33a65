#include "common/command_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace nsim::test {

static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

CommandResult run_command(const std::string& command, const std::string& env) {
    char err_template[] = "/tmp/nsim-stderr-XXXXXX";
    const int fd = mkstemp(err_template);
    if (fd >= 0) close(fd);
    // ctest runs tests in parallel: a command that does not name its simulated host's state gets a
    // private one, so that two tests never hold the same simulated NeuronCores.
    std::string private_home;
    if (env.find("NEURON_SIM_HOME=") == std::string::npos) {
        char home_template[] = "/tmp/nsim-home-XXXXXX";
        if (mkdtemp(home_template)) private_home = home_template;
    }
    const std::string home_env = private_home.empty() ? "" : "NEURON_SIM_HOME=" + private_home + " ";
    const std::string full =
        "env SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + home_env + env + " " + command + " 2>" + err_template;
    CommandResult result;
    FILE* pipe = popen(full.c_str(), "r");
    if (!pipe) return result;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.err = slurp(err_template);
    std::remove(err_template);
    if (!private_home.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(private_home, ignored);
    }
    return result;
}

// NSIM_TEST_TOOLS_DIR runs the CLI tests against another build's tools (to show that a test fails
// on an older tree, say).
std::string tool_path(const std::string& name) {
    if (const char* dir = std::getenv("NSIM_TEST_TOOLS_DIR"); dir && *dir) return std::string(dir) + "/" + name;
    return std::string(NSIM_BINARY_DIR) + "/tools/" + name;
}

int count_lines(const std::string& text) {
    int lines = 0;
    for (char c : text) lines += c == '\n';
    if (!text.empty() && text.back() != '\n') ++lines;
    return lines;
}

}  // namespace nsim::test
