#include "container_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "container_format.h"
#include "isa/container_io.h"

namespace nsim::isa {

uint32_t MemorySource::crc32(uint64_t offset, uint64_t size) { return format::crc32_of(data_ + offset, size); }

FileSource::FileSource(const std::filesystem::path& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw ContainerError("cannot open " + path.string() + ": " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) {
        const int error = errno;
        ::close(fd_);
        throw ContainerError("cannot read " + path.string() + ": " + std::strerror(error));
    }
    size_ = uint64_t(info.st_size);
}

FileSource::~FileSource() { ::close(fd_); }

void FileSource::read(uint64_t offset, uint64_t size, uint8_t* into) {
    while (size > 0) {
        const ssize_t got = ::pread(fd_, into, size_t(size), off_t(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw ContainerError("cannot read " + path_.string() + ": " + std::strerror(errno));
        if (got == 0) throw ContainerError("cannot read " + path_.string() + ": it became shorter while read");
        into += got;
        offset += uint64_t(got);
        size -= uint64_t(got);
    }
}

const uint8_t* FileSource::bytes(uint64_t offset, uint64_t size) {
    buffer_.resize(size_t(size));
    read(offset, size, buffer_.data());
    return buffer_.data();
}

uint32_t FileSource::crc32(uint64_t offset, uint64_t size) {
    constexpr uint64_t kPiece = uint64_t(4) << 20;
    std::vector<uint8_t> piece(size_t(std::min(size, kPiece)));
    uint32_t crc = 0;
    for (uint64_t done = 0; done < size;) {
        const uint64_t n = std::min(kPiece, size - done);
        read(offset + done, n, piece.data());
        crc = format::crc32_of(piece.data(), size_t(n), crc);
        done += n;
    }
    return crc;
}

}  // namespace nsim::isa
