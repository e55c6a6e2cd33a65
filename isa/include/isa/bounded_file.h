// Reading a whole file that a user named, with a limit checked before anything is allocated.
// Every tool reads its inputs (containers, assembly, configs, checkpoints' JSON, vocabularies,
// sentence pairs, host-state records) through here, so /dev/zero, a directory, a FIFO or a huge
// sparse file where a file is expected ends in one line naming the file, never in an allocation
// failure or a hang. It lives in isa because every library of ours may depend on isa.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nsim::isa {

// The file cannot be read, or is not what a `what` can be. what() is one line naming the file.
class FileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Called once with the file's first bytes (at most `head_bytes` of them) before the rest is read or
// any size is judged, so a reader that knows its format's signature rejects garbage at once.
struct HeadCheck {
    size_t head_bytes = 0;
    std::function<void(const uint8_t* data, size_t size)> check;
};

// The contents of `path`, refusing (FileError) a directory, anything not a regular file or a stream,
// and more than `max_bytes`: a regular file by its size before reading, a stream (/dev/zero, a pipe)
// once it has delivered one byte more than the limit. `what` names the expected file ("container").
std::vector<uint8_t> read_bounded_file(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what,
                                       const HeadCheck& head = {});
std::string read_bounded_text(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what);

// "N bytes" with a binary unit when it is a whole number of them ("16 MiB"), for limit messages.
std::string byte_count_text(uint64_t bytes);

}  // namespace nsim::isa
