// Runtime tests: a program to load (the layernorm/softmax example, assembled), and a way to run a
// piece of a test in a child process, each with its own simulated host, as separate processes would.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "driver_test_support.h"
#include "isa/container_io.h"
#include "isa/text_format.h"

namespace nsim::test {

inline std::vector<uint8_t> example_program(const std::string& name = "layernorm_softmax") {
    const std::string path = std::string(NSIM_CONFIG_DIR) + "/../isa/examples/" + name + ".s";
    return isa::write_container(isa::assemble(read_file(path), path).container);
}

// A forked child: runs `body` (which returns an exit code and may write a message) and _exits.
class Child {
public:
    explicit Child(const std::function<int(std::string& message)>& body) {
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
        int go[2];
        if (pipe(go) != 0) throw std::runtime_error("pipe failed");
        pid_ = fork();
        if (pid_ == 0) {
            to_parent_ = fds[1];
            from_parent_ = go[0];
            // Other children's pipe ends, inherited through the parent, must not keep those pipes open.
            for (int fd = 3; fd < 1024; ++fd)
                if (fd != to_parent_ && fd != from_parent_) ::close(fd);
            self_ = this;
            std::string message;
            int code = 99;
            try {
                code = body(message);
            } catch (const std::exception& e) {
                message = e.what();
            }
            send(message);
            _exit(code);
        }
        ::close(fds[1]);
        ::close(go[0]);
        from_child_ = fds[0];
        to_child_ = go[1];
    }
    ~Child() {
        if (pid_ > 0 && !waited_) {
            ::close(to_child_);
            wait();
        }
    }
    int pid() const { return pid_; }
    // Reads the child's next line.
    std::string line() {
        std::string text;
        char c;
        while (::read(from_child_, &c, 1) == 1 && c != '\n') text += c;
        return text;
    }
    // Lets a child blocked in wait_for_parent() continue.
    void release() { ::close(to_child_); }
    int wait() {
        int status = 0;
        waitpid(pid_, &status, 0);
        waited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    // In the child: tell the parent one line; block until it calls release().
    static void send(const std::string& text) {
        const std::string line = text + "\n";
        [[maybe_unused]] auto n = ::write(self_->to_parent_, line.data(), line.size());
    }
    static void wait_for_parent() {
        char c;
        while (::read(self_->from_parent_, &c, 1) == 1) {
        }
    }

private:
    int pid_ = -1;
    bool waited_ = false;
    int from_child_ = -1, to_child_ = -1;
    int to_parent_ = -1, from_parent_ = -1;
    static inline Child* self_ = nullptr;
};

}  // namespace nsim::test
