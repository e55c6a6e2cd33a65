#include "library/output_paths.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <vector>

#include "library/library_error.h"

namespace nsim::library {

namespace fs = std::filesystem;

void check_output_file(const std::string& what, const std::string& path) {
    std::error_code ec;
    const bool existed = fs::exists(path, ec);
    errno = 0;
    std::ofstream probe(path, std::ios::app);
    if (!probe) throw cannot_write(what, path);
    probe.close();
    if (!existed) fs::remove(path, ec);
}

void check_output_directory(const std::string& option, const std::string& dir) {
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec)) throw Error(option + " " + dir + ": exists and is not a directory");
        return;
    }
    std::vector<fs::path> missing;   // deepest first, so they are removed in that order
    for (fs::path p = fs::path(dir).lexically_normal(); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path()) break;
    }
    fs::create_directories(dir, ec);
    if (ec) throw Error(option + " " + dir + ": " + ec.message());
    for (const fs::path& p : missing) fs::remove(p, ec);
}

}  // namespace nsim::library
