// Writing a Container (FORMAT.md): section by section, in file order, to a byte vector or straight
// to a file. Why streaming: a training program of BERT-large holds two micro-step graphs of 5.7 M
// instructions; with the whole file built in memory first (each stream's encoding kept in its list,
// a copy of it per section, and the file's bytes) neuron-build peaked at 7.65 GB for a 1.7 GB file.
// Now one stream is encoded at a time (and dropped once written, unless its list already knew its
// bytes), and the header and section table, which come first but need every section's place and
// checksum, are written last over the zeros that held their place.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "byte_io.h"
#include "container_format.h"
#include "container_graphs.h"
#include "isa/container_io.h"
#include "isa/encoding.h"

namespace nsim::isa {
namespace {

using format::crc32_of;

// Names are stored behind a u16 length (FORMAT.md); a longer one would wrap and make a file that
// no reader can read back, so the writer refuses it.
uint16_t name_length(const std::string& name, const char* what) {
    if (name.size() > 0xFFFF)
        throw ContainerError(std::string(what) + " '" + name.substr(0, 32) + "...' is " + std::to_string(name.size()) +
                             " bytes long; the format holds at most 65535");
    return uint16_t(name.size());
}

std::vector<uint8_t> metadata_bytes(const Container& c) {
    std::vector<uint8_t> out;
    bytes::Writer w(out);
    w.u32(uint32_t(c.metadata.size()));
    for (const auto& [key, value] : c.metadata) {
        w.u16(name_length(key, "metadata key"));
        w.raw(key.data(), key.size());
        w.u32(uint32_t(value.size()));
        w.raw(value.data(), value.size());
    }
    return out;
}

std::vector<uint8_t> semaphore_name_bytes(const Container& c) {
    std::vector<uint8_t> out;
    bytes::Writer w(out);
    w.u32(uint32_t(c.semaphore_names.size()));
    for (const auto& s : c.semaphore_names) {
        w.u32(s.index);
        w.u16(name_length(s.name, "semaphore name"));
        w.raw(s.name.data(), s.name.size());
    }
    return out;
}

// Tensor data is laid out in tensor order, each aligned in the data section; tensors with the same
// contents share one copy.
std::vector<uint64_t> data_offsets(const Container& c, uint64_t& data_size) {
    std::vector<uint64_t> offsets;
    std::multimap<uint64_t, size_t> stored;  // (CRC-32, size) of a stored tensor's data -> its index
    data_size = 0;
    for (const auto& t : c.tensors) {
        if (t.data.empty()) {
            offsets.push_back(0);
            continue;
        }
        const uint64_t key = (uint64_t(crc32_of(t.data.data(), t.data.size())) << 32) ^ t.data.size();
        const auto [first, last] = stored.equal_range(key);
        const auto same = std::find_if(first, last, [&](const auto& s) { return c.tensors[s.second].data == t.data; });
        if (same != last) {
            offsets.push_back(offsets[same->second]);
            continue;
        }
        stored.emplace(key, offsets.size());
        data_size = (data_size + format::kDataAlignment - 1) / format::kDataAlignment * format::kDataAlignment;
        offsets.push_back(data_size);
        data_size += t.data.size();
    }
    return offsets;
}

std::vector<uint8_t> tensor_table_bytes(const Container& c, const std::vector<uint64_t>& offsets) {
    std::vector<uint8_t> out;
    bytes::Writer w(out);
    w.u32(uint32_t(c.tensors.size()));
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        const TensorInfo& t = c.tensors[i];
        w.u16(name_length(t.name, "tensor name"));
        w.raw(t.name.data(), t.name.size());
        w.u8(uint8_t(t.role));
        w.u8(uint8_t(t.dtype));
        w.u8(uint8_t(t.location));
        w.u8(uint8_t(t.shape.size()));
        for (uint64_t d : t.shape) w.u64(d);
        w.u64(t.offset);
        w.u64(offsets[i]);
        w.u64(t.data.size());
    }
    return out;
}

// A stream's instructions encoded (FORMAT.md §5): the bytes its list knows, else encoded into `scratch`.
const std::vector<uint8_t>& code_of(const InstructionList& list, std::vector<uint8_t>& scratch) {
    if (const std::vector<uint8_t>* known = list.known_code()) return *known;
    scratch.clear();
    for (const Instruction& instruction : list) encode(instruction, scratch);
    return scratch;
}

// A stream section's first bytes: its instruction count and a reserved word.
std::vector<uint8_t> stream_header(const InstructionStream& s) {
    std::vector<uint8_t> out;
    bytes::Writer w(out);
    w.u32(uint32_t(s.instructions.size()));
    w.u32(0);
    return out;
}

// Where the bytes go, in file order; `rewrite_head` puts the header and section table over the
// zeros written for them first.
struct Output {
    std::function<void(const uint8_t*, size_t)> append;
    std::function<void(const std::vector<uint8_t>&)> rewrite_head;
};

class SectionWriter {
public:
    SectionWriter(const Output& out, size_t sections) : out_(out) {
        entries_.reserve(sections);
        const std::vector<uint8_t> head(kHeaderBytes + sections * kSectionEntryBytes, 0);
        append(head.data(), head.size());
    }

    uint64_t position() const { return position_; }

    // A section starts (aligned): its entry, whose offset is set; the bytes follow through add().
    SectionEntry& begin(SectionKind kind, size_t alignment = format::kSectionAlignment) {
        static const std::vector<uint8_t> zeros(format::kDataAlignment, 0);
        append(zeros.data(), size_t((alignment - position_ % alignment) % alignment));
        SectionEntry e;
        e.kind = kind;
        e.offset = position_;
        entries_.push_back(e);
        return entries_.back();
    }
    // Bytes of the current section.
    void add(const uint8_t* data, size_t size) {
        SectionEntry& e = entries_.back();
        e.crc32 = crc32_of(data, size, e.crc32);
        e.size += size;
        append(data, size);
    }
    void section(SectionKind kind, const std::vector<uint8_t>& bytes, size_t alignment = format::kSectionAlignment) {
        begin(kind, alignment);
        add(bytes.data(), bytes.size());
    }
    // An entry for bytes already written (a stream equal to an earlier one).
    void same_as(const SectionEntry& entry) { entries_.push_back(entry); }
    const SectionEntry& entry(size_t index) const { return entries_.at(index); }
    size_t entries() const { return entries_.size(); }

    void finish(const Container& c) {
        std::vector<uint8_t> head(kHeaderBytes + entries_.size() * kSectionEntryBytes, 0);
        uint8_t* table = head.data() + kHeaderBytes;
        for (size_t i = 0; i < entries_.size(); ++i) {
            const SectionEntry& e = entries_[i];
            uint8_t* p = table + i * kSectionEntryBytes;
            bytes::patch(p + 0, uint16_t(e.kind), 2);
            bytes::patch(p + 2, uint8_t(e.engine), 1);
            bytes::patch(p + 3, e.queue, 1);
            bytes::patch(p + 4, e.core, 4);
            bytes::patch(p + 8, e.offset, 8);
            bytes::patch(p + 16, e.size, 8);
            bytes::patch(p + 24, e.crc32, 4);
            bytes::patch(p + 28, e.graph, 4);
        }
        uint8_t* h = head.data();
        std::memcpy(h, format::kMagic, sizeof format::kMagic);
        bytes::patch(h + 8, c.graphs.empty() ? kFirstGraphsFormatVersion - 1 : kFirstGraphsFormatVersion, 4);
        bytes::patch(h + 12, c.generation, 4);
        bytes::patch(h + 16, c.cores_needed, 4);
        bytes::patch(h + 20, entries_.size(), 4);
        bytes::patch(h + 24, kHeaderBytes, 8);
        bytes::patch(h + 32, position_, 8);
        bytes::patch(h + 40, crc32_of(table, entries_.size() * kSectionEntryBytes), 4);
        bytes::patch(h + format::kHeaderCrcOffset, crc32_of(h, format::kHeaderCrcOffset), 4);
        out_.rewrite_head(head);
    }

private:
    void append(const uint8_t* data, size_t size) {
        if (size) out_.append(data, size);
        position_ += size;
    }
    const Output& out_;
    std::vector<SectionEntry> entries_;
    uint64_t position_ = 0;
};

// The streams, each stored once: a stream whose bytes equal an earlier one's names that one's bytes.
void write_streams(const Container& c, SectionWriter& w) {
    std::multimap<uint64_t, std::pair<size_t, const InstructionStream*>> written;  // (CRC-32, size) -> entry, stream
    std::vector<uint8_t> scratch, earlier_scratch;
    for (const InstructionStream& s : c.streams) {
        const std::vector<uint8_t> header = stream_header(s);
        const std::vector<uint8_t>& code = code_of(s.instructions, scratch);
        const uint32_t crc = crc32_of(code.data(), code.size(), crc32_of(header.data(), header.size()));
        const uint64_t size = header.size() + code.size();
        const uint64_t key = (uint64_t(crc) << 32) ^ size;
        const auto [first, last] = written.equal_range(key);
        const auto same = std::find_if(first, last, [&](const auto& candidate) {
            const InstructionList& other = candidate.second.second->instructions;
            return other.shares_body_with(s.instructions) ||
                   (other.size() == s.instructions.size() && code_of(other, earlier_scratch) == code);
        });
        if (same != last) {
            SectionEntry e = w.entry(same->second.first);
            e.core = s.core;
            e.engine = s.engine;
            e.queue = s.queue;
            e.graph = s.graph;
            w.same_as(e);
            continue;
        }
        SectionEntry& e = w.begin(SectionKind::InstructionStream);
        e.core = s.core;
        e.engine = s.engine;
        e.queue = s.queue;
        e.graph = s.graph;
        w.add(header.data(), header.size());
        w.add(code.data(), code.size());
        written.emplace(key, std::make_pair(w.entries() - 1, &s));
    }
}

// Each tensor's data at its offset in the data section (a shared copy once), zeros between.
void write_data(const Container& c, const std::vector<uint64_t>& offsets, SectionWriter& w) {
    w.begin(SectionKind::Data, format::kDataAlignment);
    const uint64_t start = w.position();
    static const std::vector<uint8_t> zeros(format::kDataAlignment, 0);
    for (size_t i = 0; i < c.tensors.size(); ++i) {
        const std::vector<uint8_t>& data = c.tensors[i].data;
        if (data.empty() || start + offsets[i] < w.position()) continue;  // none, or a copy already written
        w.add(zeros.data(), size_t(start + offsets[i] - w.position()));
        w.add(data.data(), data.size());
    }
}

void write_sections(const Container& c, const Output& out) {
    uint64_t data_size = 0;
    const auto offsets = data_offsets(c, data_size);
    const size_t sections = 3 + (c.graphs.empty() ? 0 : 1) + c.streams.size() + (data_size ? 1 : 0);
    SectionWriter w(out, sections);
    w.section(SectionKind::Metadata, metadata_bytes(c));
    w.section(SectionKind::TensorTable, tensor_table_bytes(c, offsets));
    w.section(SectionKind::SemaphoreNames, semaphore_name_bytes(c));
    if (!c.graphs.empty()) w.section(SectionKind::GraphNames, graph_name_bytes(c));
    write_streams(c, w);
    if (data_size) write_data(c, offsets, w);
    w.finish(c);
}

[[noreturn]] void cannot_write(const std::filesystem::path& path) {
    throw ContainerError("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

std::vector<uint8_t> write_container(const Container& c) {
    std::vector<uint8_t> bytes;
    Output out;
    out.append = [&](const uint8_t* data, size_t size) { bytes.insert(bytes.end(), data, data + size); };
    out.rewrite_head = [&](const std::vector<uint8_t>& head) { std::copy(head.begin(), head.end(), bytes.begin()); };
    write_sections(c, out);
    return bytes;
}

void write_container_file(const std::filesystem::path& path, const Container& c) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) cannot_write(path);
    Output out;
    out.append = [&](const uint8_t* data, size_t size) {
        if (!file.write(reinterpret_cast<const char*>(data), std::streamsize(size))) cannot_write(path);
    };
    out.rewrite_head = [&](const std::vector<uint8_t>& head) {
        if (!file.seekp(0) || !file.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size())))
            cannot_write(path);
    };
    write_sections(c, out);
    if (!file.flush()) cannot_write(path);
}

void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) cannot_write(path);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) cannot_write(path);
}

}  // namespace nsim::isa
