// The executable container (bert.bin and every other assembled program), in memory.
// The byte layout is in isa/FORMAT.md; container_io.h converts (container_writer.cpp writes, container_io.cpp reads).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "isa/instruction_list.h"

namespace nsim::isa {

// Version 2 stores identical instruction streams once (isa/FORMAT.md §3); version 3 adds named graphs
// (§4.6). The writer writes 3 only for a program with named graphs, else 2; the reader reads 1 to 3.
constexpr uint32_t kFormatVersion = 3;
constexpr uint32_t kOldestFormatVersion = 1;
constexpr uint32_t kFirstGraphsFormatVersion = 3;

// Input/Output: copied in and out per execution. Weight: loaded once, read only. Scratch: the program's
// working memory. State: loaded once, read and written by the program and kept across executions (a
// training program's parameters and optimizer states); the host's, even when a timing-only program
// leaves its contents out.
enum class TensorRole : uint8_t { Input, Output, Weight, Scratch, State };
enum class TensorLocation : uint8_t { Device, Host };

std::string_view name_of(TensorRole);
std::string_view name_of(TensorLocation);
bool is_valid_role(uint32_t raw);
bool is_valid_location(uint32_t raw);
std::optional<TensorRole> role_from_name(std::string_view);
std::optional<TensorLocation> location_from_name(std::string_view);

struct TensorInfo {
    std::string name;
    TensorRole role = TensorRole::Scratch;
    DType dtype = DType::Fp32;
    TensorLocation location = TensorLocation::Device;
    std::vector<uint64_t> shape;
    uint64_t offset = 0;            // bytes into the program's device (or host) memory region
    std::vector<uint8_t> data;      // initial contents (weights, constants); empty: none

    // Product of the shape times the element size; saturates instead of wrapping.
    uint64_t size_bytes() const;
    bool operator==(const TensorInfo& o) const;
};

// The instructions one engine queue of one core executes, in order.
struct InstructionStream {
    uint32_t core = 0;
    Engine engine = Engine::Pe;
    uint8_t queue = 0;              // DMA queue number; 0 for every other engine
    InstructionList instructions;  // shared with every stream that holds the same instructions
    uint32_t section = 0;           // index in the file's section table (set by reader and writer order)
    uint32_t graph = 0;             // the graph it belongs to (Container::graphs); 0 without named graphs
};

struct SemaphoreName {
    uint32_t index = 0;
    std::string name;
    bool operator==(const SemaphoreName& o) const { return index == o.index && name == o.name; }
};

// A tensor that names bytes of other tensors on purpose (a view over them: the gradient all-reduce's
// buckets over the gradients) is declared in the metadata as "alias NAME" = the first tensor it
// covers, so that a checker does not take it for two tensors placed over each other by mistake.
inline constexpr const char* kAliasMetadataPrefix = "alias ";

struct Container {
    uint32_t generation = 0;        // N of NeuronCore-vN
    uint32_t cores_needed = 1;
    std::vector<std::pair<std::string, std::string>> metadata;   // in file order
    std::vector<TensorInfo> tensors;
    std::vector<SemaphoreName> semaphore_names;
    std::vector<InstructionStream> streams;
    // The program's graphs (entry points, FORMAT.md §4.6), by index: one execution runs the streams of
    // one graph, over the tensors every graph shares (a training step: its micro-step graph
    // grad_accum times, then its optimizer graph). Empty: one unnamed graph, index 0, every stream's.
    std::vector<std::string> graphs;

    uint32_t graph_count() const { return graphs.empty() ? 1 : uint32_t(graphs.size()); }
    // The index of a named graph; "" names graph 0 (the only one of a program without names).
    std::optional<uint32_t> graph_index(const std::string& name) const;
    // "'a', 'b'" (for messages); "none" without names.
    std::string graph_list() const;

    // Streams sorted by (graph, core, engine, queue) and their section numbers set to where the writer puts them.
    void canonicalize();
    std::string metadata_value(const std::string& key) const;   // "" when absent
};

// By tensor index: whether an instruction of graph `graph` names the tensor (a DRAM or host operand):
// the inputs the host must write before executing that graph, the outputs it can read after.
std::vector<bool> tensors_of_graph(const Container&, uint32_t graph);

// The streams of `core` in graph `graph` that hold instructions, ordered by (engine, queue): two cores
// run the same instructions when theirs are the same_streams (the cores of a data-parallel program).
std::vector<const InstructionStream*> core_streams(const Container&, uint32_t graph, uint32_t core);
bool same_streams(const std::vector<const InstructionStream*>& a, const std::vector<const InstructionStream*>& b);

// "core 0 queue pe", "core 1 queue dma3"
std::string queue_name(Engine engine, uint8_t queue);
std::string describe(const InstructionStream&);

}  // namespace nsim::isa
