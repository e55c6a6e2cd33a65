// The shared shell of every command-line tool: CLI11 parse errors and our own user-facing errors
// become one line on stderr and a non-zero exit code; nothing escapes as an abort.
#pragma once

#include <exception>
#include <functional>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

namespace nsim::tools {

// A problem the user caused and can fix (bad file, unknown instance, device busy...).
class UserError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline constexpr int kExitUserError = 1;
inline constexpr int kExitUsage = 2;

// Parses argv with `app`, then runs `body`. Returns the process exit code.
inline int run_tool(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
    const std::string tool = app.get_name();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::Success&) {
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << tool << ": " << e.what() << " (see " << tool << " --help)\n";
        return kExitUsage;
    }
    try {
        return body();
    } catch (const std::exception& e) {
        std::cerr << tool << ": " << e.what() << "\n";
        return kExitUserError;
    }
}

}  // namespace nsim::tools
