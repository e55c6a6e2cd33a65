#include "config_test_files.h"

#include <atomic>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

namespace nsim::config::testing {

ConfigTestFiles::ConfigTestFiles() {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("nsim-config-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
}

ConfigTestFiles::~ConfigTestFiles() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

std::filesystem::path ConfigTestFiles::write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

ConfigSet ConfigTestFiles::load_with(const std::string& text) const {
    return ConfigSet::load(NSIM_CONFIG_DIR, {write("user.yaml", text)});
}

std::string ConfigTestFiles::error_with(const std::string& text) const {
    try {
        load_with(text);
    } catch (const ConfigError& error) {
        return error.what();
    }
    return "no error";
}

std::string replaced(const std::string& text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the test file";
    if (at == std::string::npos) return text;
    EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "'" << from << "' is not unique";
    return text.substr(0, at) + to + text.substr(at + from.size());
}

int line_of(const std::string& text, const std::string& needle) {
    std::istringstream lines(text);
    std::string line;
    int found = 0;
    for (int number = 1; std::getline(lines, line); ++number) {
        if (line.find(needle) != std::string::npos) {
            EXPECT_EQ(found, 0) << "'" << needle << "' is on more than one line";
            found = number;
        }
    }
    EXPECT_NE(found, 0) << "'" << needle << "' not in the test file";
    return found;
}

}  // namespace nsim::config::testing
