// Reading one section of a container: a byte reader whose short reads and failures become one-line
// ContainerErrors naming the section and the place in it (container_io.cpp, container_graphs.cpp).
#pragma once

#include <string>
#include <utility>

#include "byte_io.h"
#include "isa/container_io.h"

namespace nsim::isa {

class SectionParser {
public:
    SectionParser(std::string label, const uint8_t* data, size_t size)
        : label_(std::move(label)), data_(data), in_(data, size) {}

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw ContainerError(label_ + where + ": " + what);
    }
    // Runs one read step; a short read becomes "truncated" at the given place.
    template <class F>
    auto read(const std::string& where, F&& f) {
        try {
            return f(in_);
        } catch (const bytes::ShortRead& e) {
            fail(where, std::string("truncated: ") + e.what());
        }
    }
    bytes::Reader& in() { return in_; }
    const uint8_t* data() const { return data_; }
    const std::string& label() const { return label_; }

private:
    std::string label_;
    const uint8_t* data_;
    bytes::Reader in_;
};

}  // namespace nsim::isa
