// The bytes of a container being read (container_io.cpp): all in memory, or in a file read a piece
// at a time. Why a file piece by piece: a training program of BERT-large is a 1.7 GB file; read whole,
// it was in host memory next to the streams decoded from it (their code is kept: the runtime writes
// it to device memory), and neuron-sim train peaked at 4.2 GB.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace nsim::isa {

class ContainerSource {
public:
    virtual ~ContainerSource() = default;
    virtual uint64_t size() const = 0;
    // Bytes [offset, offset + size), which must lie in the source; valid until the next call.
    virtual const uint8_t* bytes(uint64_t offset, uint64_t size) = 0;
    // The CRC-32 (FORMAT.md) of bytes [offset, offset + size), without holding them all at once.
    virtual uint32_t crc32(uint64_t offset, uint64_t size) = 0;
};

class MemorySource : public ContainerSource {
public:
    MemorySource(const uint8_t* data, uint64_t size) : data_(data), size_(size) {}
    uint64_t size() const override { return size_; }
    const uint8_t* bytes(uint64_t offset, uint64_t) override { return data_ + offset; }
    uint32_t crc32(uint64_t offset, uint64_t size) override;

private:
    const uint8_t* data_;
    uint64_t size_;
};

// A regular file, open for as long as the source lives. Its problems (cannot open, cannot read, it
// changed size) are ContainerErrors naming it.
class FileSource : public ContainerSource {
public:
    explicit FileSource(const std::filesystem::path& path);
    ~FileSource() override;
    FileSource(const FileSource&) = delete;
    FileSource& operator=(const FileSource&) = delete;
    uint64_t size() const override { return size_; }
    const uint8_t* bytes(uint64_t offset, uint64_t size) override;
    uint32_t crc32(uint64_t offset, uint64_t size) override;

private:
    void read(uint64_t offset, uint64_t size, uint8_t* into);
    std::filesystem::path path_;
    int fd_ = -1;
    uint64_t size_ = 0;
    std::vector<uint8_t> buffer_;
};

}  // namespace nsim::isa
