// Whole input files of the host-side BERT pieces (config.json, vocabularies, sentence pairs), read
// through the bounded reader so a directory, /dev/zero or a huge file is one InputError line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/input_error.h"
#include "isa/bounded_file.h"

namespace nsim::kernels {

inline std::string read_input_text(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what) {
    try {
        return isa::read_bounded_text(path, max_bytes, what);
    } catch (const isa::FileError& e) {
        throw InputError(e.what());
    }
}

}  // namespace nsim::kernels
