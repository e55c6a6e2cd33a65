#include "isa/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace nsim::isa {
namespace {

class OpenFile {
public:
    OpenFile(const std::filesystem::path& path, std::string_view what) {
        // O_NONBLOCK so that opening a FIFO nobody writes to returns at once (it then reads as empty);
        // reads block as usual once it is cleared.
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd_ < 0) throw FileError(fmt::format("{}: cannot open the {}: {}", path.string(), what, std::strerror(errno)));
        const int flags = ::fcntl(fd_, F_GETFL);
        if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    }
    ~OpenFile() { ::close(fd_); }
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    int fd() const { return fd_; }

private:
    int fd_ = -1;
};

// Reads until `out` holds `want` bytes or the file ends; returns false at the end of the file.
bool read_up_to(int fd, std::vector<uint8_t>& out, size_t want, const std::filesystem::path& path) {
    while (out.size() < want) {
        const size_t before = out.size();
        out.resize(want);
        const ssize_t got = ::read(fd, out.data() + before, want - before);
        if (got < 0) {
            out.resize(before);
            if (errno == EINTR) continue;
            throw FileError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
        }
        out.resize(before + size_t(got));
        if (got == 0) return false;
    }
    return true;
}

std::string too_large(const std::filesystem::path& path, std::string_view what, uint64_t max_bytes) {
    return fmt::format("{}: larger than any {} can be ({} at most)", path.string(), what, byte_count_text(max_bytes));
}

}  // namespace

std::string byte_count_text(uint64_t bytes) {
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++unit;
    return fmt::format("{} {}", bytes, units[unit]);
}

std::vector<uint8_t> read_bounded_file(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what,
                                       const HeadCheck& head) {
    const OpenFile file(path, what);
    struct stat info {};
    if (::fstat(file.fd(), &info) != 0)
        throw FileError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
    if (S_ISDIR(info.st_mode)) throw FileError(fmt::format("{}: is a directory ({} expected)", path.string(), what));
    if (!S_ISREG(info.st_mode) && !S_ISCHR(info.st_mode) && !S_ISFIFO(info.st_mode) && !S_ISBLK(info.st_mode))
        throw FileError(fmt::format("{}: not a regular file ({} expected)", path.string(), what));

    std::vector<uint8_t> bytes;
    const size_t head_bytes = size_t(std::min<uint64_t>(head.head_bytes, max_bytes));
    if (head.check) {
        read_up_to(file.fd(), bytes, head_bytes, path);
        head.check(bytes.data(), bytes.size());
    }
    if (S_ISREG(info.st_mode)) {
        if (uint64_t(info.st_size) > max_bytes) throw FileError(too_large(path, what, max_bytes));
        // The size is a hint (the file may change while read); the limit below still holds. One byte
        // more, so that the read that finds the end does not grow the vector (a copy of the whole file).
        bytes.reserve(size_t(info.st_size) + 1);
    }
    // Grows by at most 1 MiB per step, so a stream costs memory only as it delivers bytes; a regular
    // file is read in one step of its size (plus the byte that finds the end).
    constexpr size_t kStep = size_t(1) << 20;
    const size_t step = std::max(kStep, bytes.capacity() - bytes.size());
    while (read_up_to(file.fd(), bytes, size_t(std::min<uint64_t>(max_bytes + 1, bytes.size() + step)), path)) {
        if (bytes.size() > max_bytes) throw FileError(too_large(path, what, max_bytes));
    }
    return bytes;
}

std::string read_bounded_text(const std::filesystem::path& path, uint64_t max_bytes, std::string_view what) {
    const std::vector<uint8_t> bytes = read_bounded_file(path, max_bytes, what);
    return std::string(bytes.begin(), bytes.end());
}

}  // namespace nsim::isa
