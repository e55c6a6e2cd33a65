// What the tests of `neuron-sim run`, `profile` and `--trace` share: the shipped examples assembled
// into program files, and the check that an error is one line.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "common/temp_directory.h"
#include "common/command_runner.h"
#include "isa/container_io.h"
#include "isa/text_format.h"

namespace nsim::test {

// The neuron-sim this tree built.
inline std::string neuron_sim_path() { return tool_path("neuron-sim"); }

// isa/examples/NAME.s assembled into the test's temporary directory as FILE; returns its path.
inline std::string assembled_example(const std::string& name, const std::string& file) {
    const std::filesystem::path source = std::filesystem::path(NSIM_ISA_EXAMPLES_DIR) / (name + ".s");
    std::ifstream in(source);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::filesystem::path path = test::scratch_path(file);
    isa::write_file(path, isa::write_container(isa::assemble(text, source.string()).container));
    return path.string();
}

// A failure as the house wants it: non-zero exit, one line on stderr holding `fragment`, nothing on stdout.
inline void expect_one_line_error(const CommandResult& r, const std::string& fragment) {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace nsim::test
