// Helpers of the tests that run neuron-build models through neuron-sim as a user types it.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/command_runner.h"

namespace nsim::kernels::testing {

// `neuron-build bert ARGS`.
inline std::string neuron_build_bert(const std::string& args) { return test::tool_path("neuron-build") + " bert " + args; }

// `neuron-sim --instance INSTANCE SUBCOMMAND ` (the model and options follow).
inline std::string neuron_sim(const std::string& instance, const std::string& subcommand) {
    return test::tool_path("neuron-sim") + " --instance " + instance + " " + subcommand + " ";
}

// The number at j[a] (j[a][b] when `b` is given) of a JSON report.
inline double number(const nlohmann::json& j, const char* a, const char* b = nullptr) {
    return (b ? j.at(a).at(b) : j.at(a)).get<double>();
}

// One line on stderr starting "neuron-sim: " and containing `needle`, a non-zero exit, nothing on stdout.
inline void expect_neuron_sim_user_error(const test::CommandResult& r, const std::string& needle) {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.rfind("neuron-sim: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace nsim::kernels::testing
