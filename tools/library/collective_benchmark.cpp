#include "library/collective_benchmark.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "isa/access_pattern.h"
#include "isa/text_format.h"
#include "library/library_error.h"
#include "library/inter_node_phase.h"
#include "library/program_session.h"
#include "cluster/hierarchical_collective.h"

namespace nsim::library {
namespace {

using sim::cluster::CollectiveKind;

struct Operation {
    const char* name;
    const char* model_tag;  // in the program's name, as nccom-test names its NEFFs ("redsct" seen in neuron-top)
    CollectiveKind kind;
};
constexpr Operation kOperations[] = {{"all_reduce", "allr", CollectiveKind::AllReduce},
                                     {"all_gather", "allg", CollectiveKind::AllGather},
                                     {"reduce_scatter", "redsct", CollectiveKind::ReduceScatter}};

const Operation& operation_named(const std::string& name) {
    for (const Operation& op : kOperations)
        if (name == op.name) return op;
    throw Error(fmt::format("nccom-test: unknown operation '{}' (all_reduce, all_gather or reduce_scatter)", name));
}

// nccom-test's -d names the simulator has no element type for.
constexpr const char* kUnmovedTypes[] = {"fp64", "int16", "uint16", "int64", "uint64", "uint32"};

// Elements of one rank's source and destination buffers for `count` elements of the benchmark's buffer.
struct Buffers {
    uint64_t source = 0, destination = 0;
};

Buffers buffers_of(const std::string& operation, uint64_t count, uint32_t ranks) {
    if (operation == "all_reduce") return {count, count};
    // Below one element per rank, each rank still moves one.
    const uint64_t per_rank = std::max<uint64_t>(1, count / ranks);
    if (operation == "all_gather") return {per_rank, per_rank * ranks};
    return {per_rank * ranks, per_rank};  // reduce_scatter
}

// One program core per rank, each running the collective `operation` once on its own buffers, `size`
// bytes as nccom-test sizes them. A device's cores share the program's device region, so each takes
// its own slot of the two tensors.
isa::Container collective_program(const std::string& operation, uint32_t ranks, const config::HostSpec& spec,
                                  uint64_t size, isa::DType dtype) {
    const Operation& op = operation_named(operation);
    const uint32_t element = isa::size_in_bytes(dtype);
    const Buffers b = buffers_of(operation, size / element, ranks);
    const uint32_t slots = std::max<uint32_t>(1, spec.chip.cores_per_device / std::max<uint32_t>(1, spec.chip.logical_neuroncore_config));
    const std::string type(isa::name_of(dtype));
    const uint64_t output_at = (slots * b.source * element + 63) / 64 * 64;
    std::string text = fmt::format(".target {}\n.cores {}\n", spec.chip.core.version, ranks);
    text += fmt::format(".meta model \"nccom_neff_{}_x1_{}_{}_r{}\"\n", op.model_tag, size, type, ranks);
    text += fmt::format(".tensor input scratch {} [{}, {}] device 0\n", type, slots, b.source);
    text += fmt::format(".tensor output scratch {} [{}, {}] device {}\n", type, slots, b.destination, output_at);
    const std::string reduce = operation == "all_gather" ? "" : ", op=add";
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        const uint32_t slot = rank % slots;
        text += fmt::format(".core {}\n", rank);
        text += fmt::format("dma0 {} dst={} dram:output +{} [[{},1],[1,{}]], src={} dram:input +{} [[{},1],[1,{}]]{}, "
                            "first_core=0, core_count={}\n",
                            operation, type, slot * b.destination * element, b.destination, b.destination, type,
                            slot * b.source * element, b.source, b.source, reduce, ranks);
    }
    try {
        return isa::assemble(text, "nccom-test").container;
    } catch (const isa::AssemblyError& e) {
        throw Error(fmt::format("nccom-test: could not generate the {} program: {}", operation, e.message));
    }
}

// One collective of the benchmark across the cluster: its phases, each intra-node one a loaded program.
class ClusterCollective {
public:
    ClusterCollective(Instance& instance, NodeExchange& nodes, const CollectiveBenchmarkRequest& request, uint64_t size,
                      isa::DType dtype)
        : instance_(instance), nodes_(nodes), dtype_(dtype), element_(isa::size_in_bytes(dtype)),
          ranks_per_node_(request.ranks / request.nodes) {
        phases_ = sim::cluster::hierarchical_phases(operation_named(request.operation).kind, size / element_,
                                                    ranks_per_node_, request.nodes);
        for (const auto& phase : phases_) {
            if (phase.inter_node) {
                sessions_.emplace_back();
                continue;
            }
            sessions_.push_back(std::make_unique<Session>(
                instance, collective_program(sim::cluster::collective_name(phase.kind), ranks_per_node_, instance.spec(),
                                             phase.elements * element_, dtype),
                false));
        }
    }

    // One execution on every node: simulated picoseconds from the start to the last node's completion.
    uint64_t execute() {
        const uint32_t first = nodes_.first_local_node();
        std::vector<NodeArrival> local(nodes_.local_node_count());
        for (uint32_t i = 0; i < local.size(); ++i) local[i].node = first + i;
        for (size_t p = 0; p < phases_.size(); ++p) {
            if (!phases_[p].inter_node) {
                for (NodeArrival& node : local) node.time_ps += sim::cluster::seconds_to_ps(sessions_[p]->execute().device_s);
                continue;
            }
            local = run_inter_node_phase(nodes_, instance_.spec(), phases_[p], ranks_per_node_, dtype_, local);
        }
        return latest_arrival(nodes_.exchange(local));
    }

private:
    Instance& instance_;
    NodeExchange& nodes_;
    isa::DType dtype_;
    uint32_t element_, ranks_per_node_;
    std::vector<sim::cluster::CollectivePhase> phases_;
    std::vector<std::unique_ptr<Session>> sessions_;   // per phase; null for an inter-node one
};

}  // namespace

uint64_t parse_size(const std::string& text, const std::string& option) {
    size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    const std::string suffix = text.substr(digits);
    uint64_t scale = 0;
    if (suffix.empty()) scale = 1;
    else if (suffix == "K" || suffix == "k") scale = uint64_t(1) << 10;
    else if (suffix == "M" || suffix == "m") scale = uint64_t(1) << 20;
    else if (suffix == "G" || suffix == "g") scale = uint64_t(1) << 30;
    if (digits == 0 || scale == 0 || digits > 12)
        throw Error(fmt::format("nccom-test: {} '{}' is not a size (bytes, or a number followed by K, M or G)", option, text));
    return std::stoull(text.substr(0, digits)) * scale;
}

isa::DType collective_dtype(const std::string& name) {
    if (const auto dtype = isa::dtype_from_name(name)) return *dtype;
    for (const char* unmoved : kUnmovedTypes)
        if (name == unmoved)
            throw Error(fmt::format("nccom-test: data type {} is not supported by the simulated collectives (fp32, bf16, "
                                    "fp16, fp8e4m3, fp8e5m2, int32, int8, uint8)", name));
    throw Error(fmt::format("nccom-test: unknown data type '{}'", name));
}

double bus_factor(const std::string& operation, uint32_t ranks) {
    const double r = ranks;
    return operation == "all_reduce" ? 2 * (r - 1) / r : (r - 1) / r;
}

std::vector<uint64_t> benchmark_sizes(const CollectiveBenchmarkRequest& request) {
    operation_named(request.operation);
    if (request.ranks < 2) throw Error(fmt::format("nccom-test: -r {}: a collective needs at least 2 ranks", request.ranks));
    if (request.nodes == 0) throw Error("nccom-test: -N 0: a collective runs on at least one node");
    if (request.ranks % request.nodes != 0)
        throw Error(fmt::format("nccom-test: -r {} ranks do not split evenly over -N {} nodes", request.ranks, request.nodes));
    if (request.iterations == 0) throw Error("nccom-test: -n must be at least 1");
    const uint32_t element = isa::size_in_bytes(collective_dtype(request.dtype));
    const uint64_t min = parse_size(request.min_size, "-b"), max = parse_size(request.max_size, "-e");
    for (const auto& [size, option] : {std::pair{min, "-b"}, std::pair{max, "-e"}}) {
        if (size == 0) throw Error(fmt::format("nccom-test: {} must be at least one element ({} B of {})", option, element, request.dtype));
        if (size % element != 0)
            throw Error(fmt::format("nccom-test: {} {} B is not a whole number of {} elements ({} B each)", option, size,
                                    request.dtype, element));
        if (size / element > isa::kMaxOperandElements)
            throw Error(fmt::format("nccom-test: {} {} B is more than one collective moves ({} elements of {})", option, size,
                                    isa::kMaxOperandElements, request.dtype));
    }
    if (min > max) throw Error(fmt::format("nccom-test: -b {} B is larger than -e {} B", min, max));
    if (min < max && request.factor < 2) throw Error("nccom-test: -f must be at least 2 to go from -b to -e");
    std::vector<uint64_t> sizes;
    for (uint64_t size = min; size <= max; size *= request.factor) {
        sizes.push_back(size);
        if (request.factor < 2 || size > max / request.factor) break;
    }
    return sizes;
}

void check_nodes(const CollectiveBenchmarkRequest& request, const config::HostSpec& spec) {
    if (request.nodes > 1 && spec.instance.efa.devices == 0)
        throw Error(fmt::format("nccom-test: -N {}: {} has no EFA to join instances (give an instance that has, such as "
                                "trn1.32xlarge)", request.nodes, spec.instance.name));
    const uint32_t cores = spec.instance.devices * spec.chip.cores_per_device / std::max<uint32_t>(1, spec.chip.logical_neuroncore_config);
    if (request.nodes > 1 && request.ranks / request.nodes > cores)
        throw Error(fmt::format("nccom-test: -r {} over -N {} nodes is {} ranks per node; a {} has {} NeuronCores",
                                request.ranks, request.nodes, request.ranks / request.nodes, spec.instance.name, cores));
    // On one node the runtime would refuse the load ("needs 64 NeuronCores, this process holds 32"), which
    // does not say that -N is how nccom-test spreads ranks over instances.
    if (request.nodes == 1 && request.ranks > cores) {
        uint32_t nodes = (request.ranks + cores - 1) / cores;
        while (request.ranks % nodes != 0) ++nodes;   // -N must split the ranks evenly
        const std::string hint = spec.instance.efa.devices == 0
                                     ? fmt::format("-N spreads them over instances joined by EFA, which a {} has not",
                                                   spec.instance.name)
                                     : fmt::format("add -N {} to spread them over {} instances", nodes, nodes);
        throw Error(fmt::format("nccom-test: -r {} ranks; a {} has {} NeuronCores (more ranks than one instance has: {})",
                                request.ranks, spec.instance.name, cores, hint));
    }
}

std::vector<CollectiveBenchmarkRow> run_collective_benchmark(Instance& instance, const CollectiveBenchmarkRequest& request,
                                                             NodeExchange& nodes,
                                                             const std::function<void(const CollectiveBenchmarkRow&)>& row_done) {
    const std::vector<uint64_t> sizes = benchmark_sizes(request);
    check_nodes(request, instance.spec());
    const isa::DType dtype = collective_dtype(request.dtype);
    std::vector<CollectiveBenchmarkRow> rows;
    for (uint64_t size : sizes) {
        ClusterCollective collective(instance, nodes, request, size, dtype);
        for (uint32_t i = 0; i < request.warmup; ++i) collective.execute();
        uint64_t total_ps = 0;
        for (uint32_t i = 0; i < request.iterations; ++i) total_ps += collective.execute();
        CollectiveBenchmarkRow row;
        row.size_bytes = size;
        row.count = size / isa::size_in_bytes(dtype);
        row.time_us = double(total_ps) * 1e-6 / request.iterations;
        row.algbw_gib_s = double(size) / (row.time_us * 1e-6) / double(uint64_t(1) << 30);
        row.busbw_gib_s = row.algbw_gib_s * bus_factor(request.operation, request.ranks);
        rows.push_back(row);
        if (row_done) row_done(row);
    }
    return rows;
}

}  // namespace nsim::library
