// Helpers shared by the kernels tests: the shared data folder and a scratch directory per test.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace nsim::kernels::testing {

inline std::filesystem::path shared_data(const std::string& relative) {
    return std::filesystem::path(NSIM_SHARED_DATA_DIR) / relative;
}

inline std::filesystem::path vocab_path() { return shared_data("vocab/bert-base-uncased-vocab.txt"); }

// A fresh directory named after the running test (or `name`, e.g. in a suite's SetUpTestSuite where
// no test runs), removed when the object goes.
class ScratchDir {
public:
    ScratchDir() : ScratchDir(running_test_name()) {}
    explicit ScratchDir(const std::string& name) {
        path_ = std::filesystem::temp_directory_path() / ("nsim-kernels-" + name + "-" + std::to_string(::getpid()));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    static std::string running_test_name() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        return std::string(info->test_suite_name()) + "-" + info->name();
    }

    std::filesystem::path path_;
};

// The message of the InputError `call` throws, or "no error".
template <class Call>
std::string input_error_of(Call&& call) {
    try {
        call();
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// The first `count` pairs of the MRPC dev file (header included), as DIR/pairs.tsv.
inline std::filesystem::path write_mrpc_pairs(const std::filesystem::path& dir, size_t count) {
    std::ifstream in(shared_data("mrpc/glue_mrpc_dev.tsv"));
    std::string text, line;
    for (size_t i = 0; i <= count && std::getline(in, line); ++i) text += line + "\n";
    const std::filesystem::path path = dir / "pairs.tsv";
    write_text(path, text);
    return path;
}

}  // namespace nsim::kernels::testing
