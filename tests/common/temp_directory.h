// Scratch space for tests: a fresh directory removed with everything in it afterwards, and file names
// of this test process's own. CTest runs every test as its own process, two at a time, so a fixed name
// under the temporary directory is shared by tests that run at once (one truncates what the other reads).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace nsim::test {

class TempDirectory {
public:
    TempDirectory() {
        std::string pattern = (std::filesystem::temp_directory_path() / "nsim-test-XXXXXX").string();
        path_ = mkdtemp(pattern.data());
    }
    ~TempDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDirectory(const TempDirectory&) = delete;
    TempDirectory& operator=(const TempDirectory&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// TMPDIR/nsim-PID-NAME: a file no other test process writes.
inline std::filesystem::path scratch_path(const std::string& name) {
    return std::filesystem::temp_directory_path() / ("nsim-" + std::to_string(getpid()) + "-" + name);
}

}  // namespace nsim::test
