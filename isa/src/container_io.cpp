#include "isa/container_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <zlib.h>

#include "byte_io.h"
#include "isa/bounded_file.h"
#include "isa/encoding.h"
#include "isa/stream_cache.h"
#include "container_graphs.h"
#include "section_parser.h"

namespace nsim::isa {
namespace {

constexpr char kMagic[8] = {'N', 'S', 'I', 'M', 'E', 'X', 'E', '\0'};
// read_file holds the whole container in host memory. The largest program neuron-build makes,
// BERT-large with fp32 weights, is about 1.4 GB; 16 GiB leaves room for many times that and stops
// /dev/zero or a huge sparse file long before the host runs out of memory.
constexpr uint64_t kMaxContainerBytes = uint64_t(16) << 30;
constexpr size_t kHeaderCrcOffset = 60;
constexpr size_t kSectionAlignment = 16;
constexpr size_t kDataAlignment = 64;
constexpr size_t kMaxTensorRank = 8;

// zlib's crc32 is the same CRC as boost::crc_32_type (FORMAT.md) and several times faster (it
// processes words, not bytes); it was 17% of `neuron-sim run` before.
uint32_t crc32_of(const uint8_t* data, size_t size) { return uint32_t(crc32_z(0, data, size)); }

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string range_text(uint64_t offset, uint64_t size) {
    return "[" + std::to_string(offset) + ", " + std::to_string(offset + size) + ")";
}

// ---- writing ----------------------------------------------------------------------------------------

struct PendingSection {
    SectionEntry entry;
    std::vector<uint8_t> bytes;
    size_t alignment = kSectionAlignment;
    const PendingSection* same_as = nullptr;  // an earlier stream with the same bytes, stored once
};

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
        data_size = (data_size + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
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

std::vector<uint8_t> data_bytes(const Container& c, const std::vector<uint64_t>& offsets, uint64_t size) {
    std::vector<uint8_t> out(size, 0);
    for (size_t i = 0; i < c.tensors.size(); ++i)
        if (!c.tensors[i].data.empty())  // a shared copy is written again, with the same bytes
            std::memcpy(out.data() + offsets[i], c.tensors[i].data.data(), c.tensors[i].data.size());
    return out;
}

std::vector<uint8_t> stream_bytes(const InstructionStream& s) {
    std::vector<uint8_t> out;
    bytes::Writer w(out);
    w.u32(uint32_t(s.instructions.size()));
    w.u32(0);
    const std::vector<uint8_t>& code = s.instructions.code();
    out.insert(out.end(), code.begin(), code.end());
    return out;
}

// ---- reading ----------------------------------------------------------------------------------------

std::string section_label(size_t index, const SectionEntry& e) {
    return "section " + std::to_string(index) + " (" + describe(e) + ")";
}

void parse_metadata(SectionParser& p, Container& c) {
    const uint32_t count = p.read("", [](auto& in) { return in.u32(); });
    for (uint32_t i = 0; i < count; ++i) {
        const std::string where = ", entry " + std::to_string(i);
        std::string key(p.read(where, [](auto& in) { return in.text(in.u16()); }));
        std::string value(p.read(where, [](auto& in) { return in.text(in.u32()); }));
        c.metadata.emplace_back(std::move(key), std::move(value));
    }
    if (p.in().remaining()) p.fail("", std::to_string(p.in().remaining()) + " bytes after the last entry");
}

void parse_semaphore_names(SectionParser& p, Container& c) {
    const uint32_t count = p.read("", [](auto& in) { return in.u32(); });
    std::set<uint32_t> indices;
    std::set<std::string> names;
    for (uint32_t i = 0; i < count; ++i) {
        const std::string where = ", entry " + std::to_string(i);
        SemaphoreName s;
        s.index = p.read(where, [](auto& in) { return in.u32(); });
        s.name = std::string(p.read(where, [](auto& in) { return in.text(in.u16()); }));
        if (s.name.empty()) p.fail(where, "empty semaphore name");
        if (!indices.insert(s.index).second)
            p.fail(where, "semaphore " + std::to_string(s.index) + " is named twice");
        if (!names.insert(s.name).second) p.fail(where, "semaphore name '" + s.name + "' is used twice");
        c.semaphore_names.push_back(std::move(s));
    }
    if (p.in().remaining()) p.fail("", std::to_string(p.in().remaining()) + " bytes after the last entry");
}

struct DataReference {
    uint64_t offset = 0;
    uint64_t size = 0;
};

std::vector<DataReference> parse_tensor_table(SectionParser& p, Container& c) {
    std::vector<DataReference> refs;
    const uint32_t count = p.read("", [](auto& in) { return in.u32(); });
    std::set<std::string> names;
    for (uint32_t i = 0; i < count; ++i) {
        std::string where = ", entry " + std::to_string(i);
        TensorInfo t;
        t.name = std::string(p.read(where, [](auto& in) { return in.text(in.u16()); }));
        if (t.name.empty()) p.fail(where, "empty tensor name");
        where += " ('" + t.name + "')";
        if (!names.insert(t.name).second) p.fail(where, "tensor name is used twice");
        const auto [role, dtype, location, rank] = p.read(where, [](auto& in) {
            uint8_t r = in.u8(), d = in.u8(), l = in.u8(), k = in.u8();
            return std::make_tuple(r, d, l, k);
        });
        if (!is_valid_role(role)) p.fail(where, "unknown role " + std::to_string(role));
        if (!is_valid_dtype(dtype)) p.fail(where, "unknown data type " + std::to_string(dtype));
        if (!is_valid_location(location)) p.fail(where, "unknown location " + std::to_string(location));
        if (rank < 1 || rank > kMaxTensorRank)
            p.fail(where, "rank " + std::to_string(rank) + " (must be 1 to " + std::to_string(kMaxTensorRank) + ")");
        t.role = TensorRole(role);
        t.dtype = DType(dtype);
        t.location = TensorLocation(location);
        for (uint8_t d = 0; d < rank; ++d) t.shape.push_back(p.read(where, [](auto& in) { return in.u64(); }));
        t.offset = p.read(where, [](auto& in) { return in.u64(); });
        DataReference ref;
        ref.offset = p.read(where, [](auto& in) { return in.u64(); });
        ref.size = p.read(where, [](auto& in) { return in.u64(); });
        if (ref.size != 0 && ref.size != t.size_bytes())
            p.fail(where, "data is " + std::to_string(ref.size) + " bytes, the tensor is " +
                              std::to_string(t.size_bytes()));
        if (ref.size == 0 && ref.offset != 0) p.fail(where, "data offset without data");
        refs.push_back(ref);
        c.tensors.push_back(std::move(t));
    }
    if (p.in().remaining()) p.fail("", std::to_string(p.in().remaining()) + " bytes after the last entry");
    return refs;
}

void parse_stream(SectionParser& p, uint32_t section_crc, InstructionStream& s) {
    const uint32_t count = p.read("", [](auto& in) { return in.u32(); });
    if (p.read("", [](auto& in) { return in.u32(); }) != 0) p.fail("", "reserved bytes are not zero");
    // Each instruction is at least a header long; a count beyond that is a lie, not a reason to allocate.
    if (count > p.in().remaining() / kInstructionHeaderBytes)
        p.fail("", "claims " + std::to_string(count) + " instructions in " + std::to_string(p.in().remaining()) +
                       " bytes");
    size_t failed = 0;
    try {
        s.instructions =
            decode_stream_cached(p.data() + p.in().position(), p.in().remaining(), count, section_crc, failed);
    } catch (const DecodeError& e) {
        if (failed == count) p.fail("", e.what());
        p.fail(", instruction " + std::to_string(failed), e.what());
    }
}

}  // namespace

std::string_view name_of(SectionKind k) {
    switch (k) {
        case SectionKind::InstructionStream: return "instructions";
        case SectionKind::TensorTable: return "tensor table";
        case SectionKind::Data: return "data";
        case SectionKind::Metadata: return "metadata";
        case SectionKind::SemaphoreNames: return "semaphore names";
        case SectionKind::GraphNames: return "graph names";
    }
    return "?";
}

std::string describe(const SectionEntry& e) {
    if (e.kind == SectionKind::InstructionStream)
        return (e.graph ? "graph " + std::to_string(e.graph) + " " : std::string()) + "core " + std::to_string(e.core) +
               " queue " + queue_name(e.engine, e.queue);
    return std::string(name_of(e.kind));
}

std::vector<uint8_t> write_container(const Container& c) {
    std::vector<PendingSection> sections;
    auto add = [&](SectionKind kind, std::vector<uint8_t> bytes, size_t alignment = kSectionAlignment) {
        PendingSection s;
        s.entry.kind = kind;
        s.bytes = std::move(bytes);
        s.alignment = alignment;
        sections.push_back(std::move(s));
        return &sections.back().entry;
    };
    uint64_t data_size = 0;
    const auto offsets = data_offsets(c, data_size);
    add(SectionKind::Metadata, metadata_bytes(c));
    add(SectionKind::TensorTable, tensor_table_bytes(c, offsets));
    add(SectionKind::SemaphoreNames, semaphore_name_bytes(c));
    if (!c.graphs.empty()) add(SectionKind::GraphNames, graph_name_bytes(c));
    sections.reserve(5 + c.streams.size());  // `same_as` points into it
    std::multimap<uint64_t, const PendingSection*> streams;  // (CRC-32, size) of a stream's bytes
    for (const auto& s : c.streams) {
        std::vector<uint8_t> bytes = stream_bytes(s);
        const uint32_t crc = crc32_of(bytes.data(), bytes.size());
        const uint64_t key = (uint64_t(crc) << 32) ^ bytes.size();
        const auto [first, last] = streams.equal_range(key);
        const auto same = std::find_if(first, last, [&](const auto& p) { return p.second->bytes == bytes; });
        SectionEntry* e = add(SectionKind::InstructionStream, same == last ? std::move(bytes) : std::vector<uint8_t>{});
        e->core = s.core;
        e->engine = s.engine;
        e->queue = s.queue;
        e->graph = s.graph;
        e->crc32 = crc;
        if (same != last) sections.back().same_as = same->second;
        else streams.emplace(key, &sections.back());
    }
    if (data_size) add(SectionKind::Data, data_bytes(c, offsets, data_size), kDataAlignment);

    std::vector<uint8_t> out(kHeaderBytes + sections.size() * kSectionEntryBytes, 0);
    bytes::Writer w(out);
    for (auto& s : sections) {
        if (s.same_as) {
            s.entry.offset = s.same_as->entry.offset;
            s.entry.size = s.same_as->entry.size;
            continue;
        }
        w.align(s.alignment);
        s.entry.offset = w.position();
        s.entry.size = s.bytes.size();
        if (s.entry.kind != SectionKind::InstructionStream)  // streams have theirs from the sharing above
            s.entry.crc32 = crc32_of(s.bytes.data(), s.bytes.size());
        w.raw(s.bytes.data(), s.bytes.size());
    }

    uint8_t* table = out.data() + kHeaderBytes;
    for (size_t i = 0; i < sections.size(); ++i) {
        const SectionEntry& e = sections[i].entry;
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
    uint8_t* h = out.data();
    std::memcpy(h, kMagic, sizeof kMagic);
    bytes::patch(h + 8, c.graphs.empty() ? kFirstGraphsFormatVersion - 1 : kFirstGraphsFormatVersion, 4);
    bytes::patch(h + 12, c.generation, 4);
    bytes::patch(h + 16, c.cores_needed, 4);
    bytes::patch(h + 20, sections.size(), 4);
    bytes::patch(h + 24, kHeaderBytes, 8);
    bytes::patch(h + 32, out.size(), 8);
    bytes::patch(h + 40, crc32_of(table, sections.size() * kSectionEntryBytes), 4);
    bytes::patch(h + kHeaderCrcOffset, crc32_of(h, kHeaderCrcOffset), 4);
    return out;
}

ContainerLayout read_layout(const uint8_t* data, size_t size) {
    if (size < kHeaderBytes)
        throw ContainerError("truncated: the file is " + std::to_string(size) + " bytes, shorter than the " +
                             std::to_string(kHeaderBytes) + "-byte header");
    if (std::memcmp(data, kMagic, sizeof kMagic) != 0)
        throw ContainerError("header: wrong magic (not a neuron-sim executable)");
    bytes::Reader h(data + sizeof kMagic, kHeaderBytes - sizeof kMagic);
    ContainerLayout layout;
    layout.format_version = h.u32();
    if (layout.format_version < kOldestFormatVersion || layout.format_version > kFormatVersion)
        throw ContainerError("header: format version " + std::to_string(layout.format_version) +
                             " is not supported (this reader reads versions " + std::to_string(kOldestFormatVersion) +
                             " to " + std::to_string(kFormatVersion) + ")");
    layout.generation = h.u32();
    layout.cores_needed = h.u32();
    const uint32_t section_count = h.u32();
    layout.section_table_offset = h.u64();
    layout.file_size = h.u64();
    const uint32_t table_crc = h.u32();
    bool reserved_zero = true;
    for (size_t i = 44; i < kHeaderCrcOffset; ++i) reserved_zero = reserved_zero && data[i] == 0;
    bytes::Reader crc_field(data + kHeaderCrcOffset, 4);
    const uint32_t stored_header_crc = crc_field.u32();
    const uint32_t header_crc = crc32_of(data, kHeaderCrcOffset);
    if (stored_header_crc != header_crc)
        throw ContainerError("header: checksum mismatch (stored " + hex32(stored_header_crc) + ", computed " +
                             hex32(header_crc) + ")");
    if (!reserved_zero) throw ContainerError("header: reserved bytes are not zero");
    if (layout.file_size > size)
        throw ContainerError("truncated: the header says the file is " + std::to_string(layout.file_size) +
                             " bytes, it is " + std::to_string(size));
    if (layout.file_size < size)
        throw ContainerError("header: the file is " + std::to_string(size) + " bytes, the header says " +
                             std::to_string(layout.file_size));
    if (layout.generation == 0) throw ContainerError("header: target generation is 0");
    if (layout.cores_needed == 0) throw ContainerError("header: cores needed is 0");

    const uint64_t table_size = uint64_t(section_count) * kSectionEntryBytes;
    if (layout.section_table_offset < kHeaderBytes || layout.section_table_offset > size ||
        table_size > size - layout.section_table_offset)
        throw ContainerError("header: section table " + range_text(layout.section_table_offset, table_size) +
                             " lies outside the file (" + std::to_string(size) + " bytes)");
    const uint8_t* table = data + layout.section_table_offset;
    const uint32_t computed_table_crc = crc32_of(table, table_size);
    if (table_crc != computed_table_crc)
        throw ContainerError("section table: checksum mismatch (stored " + hex32(table_crc) + ", computed " +
                             hex32(computed_table_crc) + ")");

    // Everything before the sections' bytes: header and section table (which need not be adjacent).
    struct Extent {
        uint64_t begin, end;
        std::string label;
        bool stream = false;
        uint32_t crc32 = 0;
    };
    std::vector<Extent> extents{{0, kHeaderBytes, "the header"},
                                {layout.section_table_offset, layout.section_table_offset + table_size,
                                 "the section table"}};
    for (uint32_t i = 0; i < section_count; ++i) {
        bytes::Reader r(table + size_t(i) * kSectionEntryBytes, kSectionEntryBytes);
        SectionEntry e;
        const uint16_t kind = r.u16();
        const uint8_t engine = r.u8();
        e.queue = r.u8();
        e.core = r.u32();
        e.offset = r.u64();
        e.size = r.u64();
        e.crc32 = r.u32();
        // Version 3: a stream's graph; otherwise reserved.
        const uint32_t last_field = r.u32();
        const bool graphs = layout.format_version >= kFirstGraphsFormatVersion;
        const uint32_t reserved = graphs && kind == uint16_t(SectionKind::InstructionStream) ? 0 : last_field;
        if (!reserved) e.graph = last_field;
        const std::string plain = "section " + std::to_string(i);
        const uint16_t last_kind = uint16_t(graphs ? SectionKind::GraphNames : SectionKind::SemaphoreNames);
        if (kind < uint16_t(SectionKind::InstructionStream) || kind > last_kind)
            throw ContainerError(plain + ": unknown kind " + std::to_string(kind));
        e.kind = SectionKind(kind);
        if (e.kind == SectionKind::InstructionStream) {
            if (!is_valid_engine(engine)) throw ContainerError(plain + ": unknown engine " + std::to_string(engine));
            e.engine = Engine(engine);
        } else if (engine || e.queue || e.core) {
            throw ContainerError(section_label(i, e) + ": engine, queue and core must be 0");
        }
        const std::string label = section_label(i, e);
        if (reserved) throw ContainerError(label + ": reserved bytes are not zero");
        if (e.kind == SectionKind::InstructionStream && e.engine != Engine::Dma && e.queue != 0)
            throw ContainerError(label + ": queue number on an engine with a single queue");
        if (e.offset > size || e.size > size - e.offset)
            throw ContainerError(label + ": bytes " + range_text(e.offset, e.size) + " lie outside the file (" +
                                 std::to_string(size) + " bytes)");
        // Version 2: a stream may name exactly the bytes of an earlier stream (stored once).
        const Extent* shared = nullptr;
        for (const auto& x : extents) {
            if (!(e.size && x.end > x.begin && e.offset < x.end && x.begin < e.offset + e.size)) continue;
            const bool same_stream = layout.format_version >= 2 && x.stream &&
                                     e.kind == SectionKind::InstructionStream && x.begin == e.offset &&
                                     x.end == e.offset + e.size;
            if (!same_stream) throw ContainerError(label + " overlaps " + x.label);
            shared = &x;
        }
        const uint32_t crc = shared ? shared->crc32 : crc32_of(data + e.offset, e.size);
        if (e.size && !shared)
            extents.push_back({e.offset, e.offset + e.size, label, e.kind == SectionKind::InstructionStream, crc});
        if (crc != e.crc32)
            throw ContainerError(label + ": checksum mismatch (stored " + hex32(e.crc32) + ", computed " +
                                 hex32(crc) + ")");
        layout.sections.push_back(e);
    }
    return layout;
}

Container read_container(const uint8_t* data, size_t size) {
    const ContainerLayout layout = read_layout(data, size);
    Container c;
    c.generation = layout.generation;
    c.cores_needed = layout.cores_needed;

    std::map<SectionKind, size_t> singletons;
    std::set<std::tuple<uint32_t, uint32_t, uint8_t, uint8_t>> queues;
    std::vector<DataReference> refs;
    std::map<std::pair<uint64_t, uint64_t>, size_t> stream_at;  // (offset, size) -> the stream decoded from those bytes
    size_t tensor_section = 0, data_section = 0;
    bool have_data = false;
    for (size_t i = 0; i < layout.sections.size(); ++i) {
        const SectionEntry& e = layout.sections[i];
        const std::string label = section_label(i, e);
        SectionParser p(label, data + e.offset, e.size);
        if (e.kind != SectionKind::InstructionStream) {
            auto [it, fresh] = singletons.emplace(e.kind, i);
            if (!fresh) throw ContainerError(label + ": a second " + std::string(name_of(e.kind)) +
                                             " section (the first is section " + std::to_string(it->second) + ")");
        }
        switch (e.kind) {
            case SectionKind::Metadata: parse_metadata(p, c); break;
            case SectionKind::SemaphoreNames: parse_semaphore_names(p, c); break;
            case SectionKind::GraphNames: parse_graph_names(p, c); break;
            case SectionKind::TensorTable:
                refs = parse_tensor_table(p, c);
                tensor_section = i;
                break;
            case SectionKind::Data:
                have_data = true;
                data_section = i;
                break;
            case SectionKind::InstructionStream: {
                if (e.core >= c.cores_needed)
                    throw ContainerError(label + ": core " + std::to_string(e.core) + " but the header says " +
                                         std::to_string(c.cores_needed) + " cores are needed");
                if (!queues.emplace(e.graph, e.core, uint8_t(e.engine), e.queue).second)
                    throw ContainerError(label + ": a second stream for the same queue");
                InstructionStream s;
                s.graph = e.graph;
                s.core = e.core;
                s.engine = e.engine;
                s.queue = e.queue;
                s.section = uint32_t(i);
                // Version 2 stores identical streams once: a section naming the bytes of an earlier one
                // takes its instructions (read_layout checked that it names exactly those bytes).
                const auto [earlier, fresh] = stream_at.emplace(std::make_pair(e.offset, e.size), c.streams.size());
                if (fresh) parse_stream(p, e.crc32, s);
                else s.instructions = c.streams[earlier->second].instructions;
                c.streams.push_back(std::move(s));
                break;
            }
        }
    }
    check_stream_graphs(c, layout);
    for (size_t t = 0; t < refs.size(); ++t) {
        if (refs[t].size == 0) continue;
        const std::string where = section_label(tensor_section, layout.sections[tensor_section]) + ", entry " +
                                  std::to_string(t) + " ('" + c.tensors[t].name + "')";
        if (!have_data) throw ContainerError(where + ": has data but the file has no data section");
        const SectionEntry& d = layout.sections[data_section];
        if (refs[t].offset > d.size || refs[t].size > d.size - refs[t].offset)
            throw ContainerError(where + ": data " + range_text(refs[t].offset, refs[t].size) +
                                 " lies outside the data section (" + std::to_string(d.size) + " bytes)");
        const uint8_t* p = data + d.offset + refs[t].offset;
        c.tensors[t].data.assign(p, p + refs[t].size);
    }
    return c;
}

Container read_container(const std::vector<uint8_t>& bytes) { return read_container(bytes.data(), bytes.size()); }

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
    // The magic is checked on the first bytes, so /dev/zero or a huge file of anything else is
    // refused before it is read (a file shorter than a header is left for read_container to call
    // truncated).
    const HeadCheck magic{kHeaderBytes, [&](const uint8_t* data, size_t size) {
        if (size == kHeaderBytes && std::memcmp(data, kMagic, sizeof kMagic) != 0)
            throw ContainerError(path.string() + ": header: wrong magic (not a neuron-sim executable)");
    }};
    try {
        return read_bounded_file(path, kMaxContainerBytes, "container", magic);
    } catch (const FileError& e) {
        throw ContainerError(e.what());
    }
}

void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw ContainerError("cannot write " + path.string() + ": " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw ContainerError("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace nsim::isa
