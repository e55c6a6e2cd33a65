// The shared shell of every command-line tool: CLI11 parse errors and our own user-facing errors
// become one line on stderr and a non-zero exit code; nothing escapes as an abort.
#pragma once

#include <exception>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "common/number_options.h"

namespace nsim::tools {

// A problem the user caused and can fix (bad file, unknown instance, device busy...).
class UserError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline constexpr int kExitUserError = 1;
inline constexpr int kExitUsage = 2;

// The version every tool of this build reports (--version, neuron-top's title, neuron-ls).
inline constexpr const char* kToolsVersion = "0.1.0";

// The environment variables a tool reads, as its --help lists them.
using EnvironmentHelp = std::initializer_list<std::pair<const char*, const char*>>;
inline constexpr const char* kHomeVariable = "NEURON_SIM_HOME";
inline constexpr const char* kHomeHelp = "the simulated hosts' state directory (default ~/.neuron-sim)";
inline constexpr const char* kInstanceVariable = "NEURON_SIM_INSTANCE";
inline constexpr const char* kInstanceHelp = "the instance (host) when --instance is not given";
inline std::string environment_footer(EnvironmentHelp variables) {
    std::string text = "Environment:";
    for (const auto& [name, help] : variables) text += std::string("\n  ") + name + "  " + help;
    return text;
}

// Prints "tool: message" on stderr in one write, so that nothing sharing the stream (mpirun's own
// messages, another rank's output) can land inside the line.
inline void print_error_line(const std::string& tool, const std::string& message) {
    std::cerr << (tool + ": " + message + "\n") << std::flush;
}

// Parses argv with `app`, then runs `body`. Returns the process exit code. Every tool answers
// --version, and its --help ends with the environment variables it reads.
inline int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body,
                    EnvironmentHelp environment = {}) {
    const std::string tool = app.get_name();
    app.set_version_flag("--version", tool + " " + kToolsVersion);
    if (environment.size() > 0) app.footer(environment_footer(environment));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return 0;
    } catch (const CLI::Success&) {
        return 0;
    } catch (const CLI::ParseError& e) {
        print_error_line(tool, std::string(e.what()) + " (see " + tool + " --help)");
        return kExitUsage;
    }
    try {
        return body();
    } catch (const std::exception& e) {
        print_error_line(tool, e.what());
        return kExitUserError;
    }
}

}  // namespace nsim::tools
