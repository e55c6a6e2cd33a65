// Writing config files for a test into a fresh directory of its own, and loading the shipped
// configs/ together with them.
#pragma once

#include <filesystem>
#include <string>

#include "config/config_set.h"

namespace nsim::config::testing {

class ConfigTestFiles {
public:
    ConfigTestFiles();   // a new empty directory per test
    ~ConfigTestFiles();  // removed again

    // Writes `text` to DIR/name and returns its path.
    std::filesystem::path write(const std::string& name, const std::string& text) const;
    // Loads the shipped configs/ plus DIR/user.yaml holding `text`.
    ConfigSet load_with(const std::string& text) const;
    // The ConfigError message loading the shipped configs/ plus DIR/user.yaml gives, or
    // "no error".
    std::string error_with(const std::string& text) const;

    std::filesystem::path user_file() const { return dir_ / "user.yaml"; }
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
};

// `text` with the single occurrence of `from` replaced by `to` (fails the test if not exactly one).
std::string replaced(const std::string& text, const std::string& from, const std::string& to);
// The 1-based number of the line of `text` holding `needle` (fails the test if not exactly one).
int line_of(const std::string& text, const std::string& needle);

}  // namespace nsim::config::testing
