#include "library/gzip_stream.h"

#include <zlib.h>

namespace nsim::library {

GzipOutputStream::Buffer::Buffer(const std::string& path) {
    file_ = gzopen(path.c_str(), "wb");
    setp(data_.data(), data_.data() + data_.size());
}

GzipOutputStream::Buffer::~Buffer() { close(); }

bool GzipOutputStream::Buffer::drain() {
    const int pending = int(pptr() - pbase());
    if (pending > 0 && (!file_ || gzwrite(static_cast<gzFile>(file_), pbase(), unsigned(pending)) != pending)) failed_ = true;
    setp(data_.data(), data_.data() + data_.size());
    return !failed_;
}

GzipOutputStream::Buffer::int_type GzipOutputStream::Buffer::overflow(int_type c) {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
}

int GzipOutputStream::Buffer::sync() { return drain() ? 0 : -1; }

bool GzipOutputStream::Buffer::close() {
    if (!file_) return false;
    drain();
    if (gzclose(static_cast<gzFile>(file_)) != Z_OK) failed_ = true;
    file_ = nullptr;
    return !failed_;
}

GzipOutputStream::GzipOutputStream(const std::string& path) : std::ostream(&buffer_), buffer_(path) {
    if (!buffer_.is_open()) setstate(std::ios::failbit);
}

GzipOutputStream::~GzipOutputStream() { buffer_.close(); }

void GzipOutputStream::close() {
    if (!buffer_.close()) setstate(std::ios::failbit);
}

}  // namespace nsim::library
