// An output stream that writes a gzip file through zlib, for trace files a browser opens compressed
// (`--trace t.json.gz`: Perfetto and chrome://tracing read gzip; a Chrome trace's JSON shrinks about
// tenfold). Errors show as the stream's failbit, as with std::ofstream.
#pragma once

#include <array>
#include <ostream>
#include <streambuf>
#include <string>

namespace nsim::library {

class GzipOutputStream : public std::ostream {
public:
    explicit GzipOutputStream(const std::string& path);
    ~GzipOutputStream() override;
    // Flushes and closes the file; sets failbit when anything could not be written.
    void close();

private:
    class Buffer : public std::streambuf {
    public:
        explicit Buffer(const std::string& path);
        ~Buffer() override;
        bool is_open() const { return file_ != nullptr; }
        bool close();  // false when a write or the close failed

    protected:
        int_type overflow(int_type c) override;
        int sync() override;

    private:
        bool drain();
        void* file_ = nullptr;  // gzFile
        bool failed_ = false;
        std::array<char, 1 << 16> data_{};
    };
    Buffer buffer_;
};

}  // namespace nsim::library
