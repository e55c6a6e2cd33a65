// libFuzzer target: arbitrary bytes as a user's --config file (chips and/or instances) read on top of
// the shipped configs/, then every instance resolved. Any crash, sanitizer report or exception other
// than ConfigError is a bug; a ConfigError is the expected answer to garbage.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "config/config_reader.h"
#include "config/config_set.h"

namespace {

// The shipped configs/, read once; each input is read into a copy of them.
const nsim::config::ConfigSet& shipped() {
    static const nsim::config::ConfigSet set = nsim::config::ConfigSet::load(NSIM_CONFIG_DIR);
    return set;
}

// The reader takes files (it names them in its messages), so each input is written to one.
const std::filesystem::path& input_file() {
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("nsim-config-fuzz-" + std::to_string(getpid()) + ".yaml");
    return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FILE* out = std::fopen(input_file().c_str(), "wb");
    if (!out) return 0;
    std::fwrite(data, 1, size, out);
    std::fclose(out);
    nsim::config::ConfigSet set = shipped();
    try {
        nsim::config::ConfigReader(set).read_file(input_file());
        for (const std::string& name : set.instance_names()) (void)set.host(name);
    } catch (const nsim::config::ConfigError& e) {
        (void)e.what();
    }
    return 0;
}
