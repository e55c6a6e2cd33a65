#include "background_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nsim::test {

Background::Background(const std::string& exports, const std::string& command) {
    pid_ = fork();
    if (pid_ == 0) {
        setpgid(0, 0);
        const std::string script = "export " + exports + "; " + command + " >/dev/null 2>&1";
        execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid_, pid_);
}

Background::~Background() {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
}

}  // namespace nsim::test
