#include "isa/container_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "byte_io.h"
#include "isa/bounded_file.h"
#include "isa/encoding.h"
#include "isa/stream_cache.h"
#include "container_format.h"
#include "container_graphs.h"
#include "container_source.h"
#include "section_parser.h"

namespace nsim::isa {
namespace {

// read_file holds the whole container in host memory. The largest program neuron-build makes,
// BERT-large with fp32 weights, is about 1.4 GB; 16 GiB leaves room for many times that and stops
// /dev/zero or a huge sparse file long before the host runs out of memory.
constexpr uint64_t kMaxContainerBytes = uint64_t(16) << 30;
constexpr size_t kMaxTensorRank = 8;

using format::crc32_of;
using format::kHeaderCrcOffset;
using format::kMagic;

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string range_text(uint64_t offset, uint64_t size) {
    return "[" + std::to_string(offset) + ", " + std::to_string(offset + size) + ")";
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

namespace {

ContainerLayout read_layout(ContainerSource& source) {
    const uint64_t size = source.size();
    if (size < kHeaderBytes)
        throw ContainerError("truncated: the file is " + std::to_string(size) + " bytes, shorter than the " +
                             std::to_string(kHeaderBytes) + "-byte header");
    const uint8_t* header_bytes = source.bytes(0, kHeaderBytes);
    const std::vector<uint8_t> header(header_bytes, header_bytes + kHeaderBytes);
    const uint8_t* data = header.data();
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
    const uint8_t* table_bytes = source.bytes(layout.section_table_offset, table_size);
    const std::vector<uint8_t> table_copy(table_bytes, table_bytes + table_size);
    const uint8_t* table = table_copy.data();
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
        const uint32_t crc = shared ? shared->crc32 : source.crc32(e.offset, e.size);
        if (e.size && !shared)
            extents.push_back({e.offset, e.offset + e.size, label, e.kind == SectionKind::InstructionStream, crc});
        if (crc != e.crc32)
            throw ContainerError(label + ": checksum mismatch (stored " + hex32(e.crc32) + ", computed " +
                                 hex32(crc) + ")");
        layout.sections.push_back(e);
    }
    return layout;
}

Container read_container(ContainerSource& source) {
    const ContainerLayout layout = read_layout(source);
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
        // The section's bytes, read only for a section that is parsed (not the data, not a shared stream).
        auto parser = [&] { return SectionParser(label, source.bytes(e.offset, e.size), e.size); };
        if (e.kind != SectionKind::InstructionStream) {
            auto [it, fresh] = singletons.emplace(e.kind, i);
            if (!fresh) throw ContainerError(label + ": a second " + std::string(name_of(e.kind)) +
                                             " section (the first is section " + std::to_string(it->second) + ")");
        }
        switch (e.kind) {
            case SectionKind::Metadata: {
                SectionParser p = parser();
                parse_metadata(p, c);
                break;
            }
            case SectionKind::SemaphoreNames: {
                SectionParser p = parser();
                parse_semaphore_names(p, c);
                break;
            }
            case SectionKind::GraphNames: {
                SectionParser p = parser();
                parse_graph_names(p, c);
                break;
            }
            case SectionKind::TensorTable: {
                SectionParser p = parser();
                refs = parse_tensor_table(p, c);
                tensor_section = i;
                break;
            }
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
                if (fresh) {
                    SectionParser p = parser();
                    parse_stream(p, e.crc32, s);
                }
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
        const uint8_t* p = source.bytes(d.offset + refs[t].offset, refs[t].size);
        c.tensors[t].data.assign(p, p + refs[t].size);
    }
    return c;
}

}  // namespace

ContainerLayout read_layout(const uint8_t* data, size_t size) {
    MemorySource source(data, size);
    return read_layout(source);
}

Container read_container(const uint8_t* data, size_t size) {
    MemorySource source(data, size);
    return read_container(source);
}

Container read_container(const std::vector<uint8_t>& bytes) { return read_container(bytes.data(), bytes.size()); }

Container read_container_file(const std::filesystem::path& path) {
    std::error_code ec;
    const bool regular = std::filesystem::is_regular_file(path, ec);
    const uint64_t size = regular ? std::filesystem::file_size(path, ec) : 0;
    // Anything but a regular file of a plausible size is read whole, with read_file's checks and messages.
    if (!regular || ec || size < kHeaderBytes || size > kMaxContainerBytes) {
        const std::vector<uint8_t> bytes = read_file(path);
        try {
            return read_container(bytes);
        } catch (const ContainerError& e) {
            throw ContainerError(path.string() + ": " + e.what());
        }
    }
    FileSource source(path);
    if (std::memcmp(source.bytes(0, kHeaderBytes), kMagic, sizeof kMagic) != 0)
        throw ContainerError(path.string() + ": header: wrong magic (not a neuron-sim executable)");
    try {
        return read_container(source);
    } catch (const ContainerError& e) {
        throw ContainerError(path.string() + ": " + e.what());
    }
}

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

}  // namespace nsim::isa
