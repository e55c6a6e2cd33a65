#include "config/chip_reader.h"

#include "config/device_interface_reader.h"

#include <limits>

#include <fmt/format.h>

#include "isa/container.h"
#include "isa/instruction.h"

namespace nsim::config {
namespace {

// Names the simulator gives meaning to; anything else is a typo.
const std::vector<std::string> kEngineNames = {"tensor", "vector", "scalar", "gpsimd", "sync"};
const std::vector<std::string> kDataTypes = {"fp8", "bf16", "fp16", "tf32", "fp32", "int8"};
const std::vector<std::string> kBarRoles = {"registers", "neuron-core-window", "device-memory"};
// A PCI type-0 configuration header has six BARs.
constexpr uint32_t kPciBarSlots = 6;

bool contains(const std::vector<std::string>& names, const std::string& name) {
    for (const auto& known : names)
        if (known == name) return true;
    return false;
}

uint64_t positive_bytes(const ConfigNode& node) {
    const uint64_t value = node.as_bytes();
    if (value == 0) node.fail("must be greater than zero");
    return value;
}

double positive(const ConfigNode& node, Quantity kind) {
    const double value = node.as_quantity(kind);
    if (value <= 0) node.fail("must be greater than zero");
    return value;
}

uint32_t optional_u32(const ConfigNode& map, const std::string& key) {
    const auto node = map.find(key);
    return node ? node->as_u32() : 0;
}

EngineSpec read_engine(const ConfigNode& node) {
    node.check_keys({"clock_hz", "elements_per_cycle", "min_instruction_cycles",
                     "instruction_overhead_cycles", "elements_per_cycle_16bit", "result_latency_cycles"});
    EngineSpec engine;
    engine.name = node.name();
    if (!contains(kEngineNames, engine.name))
        node.fail(fmt::format("unknown engine (expected one of: {})", fmt::join(kEngineNames, ", ")));
    engine.clock_hz = positive(node.at("clock_hz"), Quantity::hertz);
    // The sync engine only sequences; every other engine streams data and needs a width.
    const ConfigNode width = node.at("elements_per_cycle");
    engine.elements_per_cycle = engine.name == "sync" ? width.as_u32() : width.as_positive_u32();
    engine.min_instruction_cycles = optional_u32(node, "min_instruction_cycles");
    engine.instruction_overhead_cycles = optional_u32(node, "instruction_overhead_cycles");
    engine.elements_per_cycle_16bit = optional_u32(node, "elements_per_cycle_16bit");
    engine.result_latency_cycles = optional_u32(node, "result_latency_cycles");
    return engine;
}

// An optional map from data type name to a positive count (tensor-engine timing rates).
std::map<std::string, uint32_t> optional_per_dtype_counts(const ConfigNode& map, const std::string& key) {
    std::map<std::string, uint32_t> counts;
    const auto node = map.find(key);
    if (!node) return counts;
    for (const ConfigNode& entry : node->entries()) {
        if (!contains(kDataTypes, entry.name()))
            entry.fail(fmt::format("unknown data type (expected one of: {})", fmt::join(kDataTypes, ", ")));
        counts[entry.name()] = entry.as_positive_u32();
    }
    return counts;
}

// An optional list of distinct engine names, each one the core has.
std::vector<std::string> optional_engine_names(const ConfigNode& map, const std::string& key,
                                               const std::vector<EngineSpec>& engines) {
    std::vector<std::string> names;
    const auto node = map.find(key);
    if (!node) return names;
    if (!node->is_list()) node->fail("must be a list of engine names");
    for (const ConfigNode& item : node->items()) {
        const std::string name = item.as_string();
        bool present = false;
        for (const EngineSpec& e : engines) present = present || e.name == name;
        if (!present) item.fail(fmt::format("the core has no '{}' engine", name));
        if (contains(names, name)) item.fail(fmt::format("'{}' is listed twice", name));
        names.push_back(name);
    }
    return names;
}

TensorEngineSpec read_tensor(const ConfigNode& node) {
    node.check_keys({"pe_rows", "pe_cols", "max_contraction", "max_stationary_free",
                     "max_moving_free", "peak_flops", "stationary_load_columns_per_cycle",
                     "pipeline_io_cycles", "moving_cycles_per_column", "contraction_rows_per_pe",
                     "transpose_cycles_per_column"});
    TensorEngineSpec tensor;
    tensor.pe_rows = node.at("pe_rows").as_positive_u32();
    tensor.pe_cols = node.at("pe_cols").as_positive_u32();
    const ConfigNode contraction = node.at("max_contraction");
    tensor.max_contraction = contraction.as_positive_u32();
    if (tensor.max_contraction > tensor.pe_rows)
        contraction.fail(fmt::format("must not exceed pe_rows ({})", tensor.pe_rows));
    const ConfigNode stationary = node.at("max_stationary_free");
    tensor.max_stationary_free = stationary.as_positive_u32();
    if (tensor.max_stationary_free > tensor.pe_cols)
        stationary.fail(fmt::format("must not exceed pe_cols ({})", tensor.pe_cols));
    tensor.max_moving_free = node.at("max_moving_free").as_positive_u32();
    const ConfigNode peaks = node.at("peak_flops");
    for (const ConfigNode& peak : peaks.entries()) {
        if (!contains(kDataTypes, peak.name()))
            peak.fail(fmt::format("unknown data type (expected one of: {})", fmt::join(kDataTypes, ", ")));
        tensor.peak_flops[peak.name()] = positive(peak, Quantity::flops);
    }
    if (tensor.peak_flops.empty()) peaks.fail("needs at least one data type");
    if (const auto load = node.find("stationary_load_columns_per_cycle"))
        tensor.stationary_load_columns_per_cycle = load->as_positive_u32();
    tensor.pipeline_io_cycles = optional_u32(node, "pipeline_io_cycles");
    tensor.moving_cycles_per_column = optional_per_dtype_counts(node, "moving_cycles_per_column");
    tensor.contraction_rows_per_pe = optional_per_dtype_counts(node, "contraction_rows_per_pe");
    tensor.transpose_cycles_per_column = optional_per_dtype_counts(node, "transpose_cycles_per_column");
    return tensor;
}

OnChipMemorySpec read_on_chip_memory(const ConfigNode& node, bool banked) {
    if (banked) node.check_keys({"partitions", "bytes_per_partition", "banks"});
    else node.check_keys({"partitions", "bytes_per_partition"});
    OnChipMemorySpec memory;
    memory.partitions = node.at("partitions").as_positive_u32();
    const ConfigNode bytes = node.at("bytes_per_partition");
    memory.bytes_per_partition = positive_bytes(bytes);
    if (banked) {
        const ConfigNode banks = node.at("banks");
        memory.banks = banks.as_positive_u32();
        if (memory.bytes_per_partition % memory.banks != 0)
            banks.fail("must divide bytes_per_partition into equal banks");
    }
    return memory;
}

NeuronCoreSpec read_neuron_core(const ConfigNode& node) {
    node.check_keys({"name", "version", "engines", "tensor", "sbuf", "psum", "semaphores",
                     "dma_engines", "dma_queues_per_engine", "dma_engine_bytes_per_s",
                     "dma_engine_sustained_bytes_per_s", "dma_transfer_overhead_s", "dma_descriptor_s", "sram_access_latency_cycles",
                     "sram_full_rate_stride_bytes", "control_instruction_cycles",
                     "bn_aggr_cycles_per_3_elements", "sbuf_shared_port_engines", "psum_shared_port_engines"});
    NeuronCoreSpec core;
    core.name = node.at("name").as_string();
    core.version = node.at("version").as_string();
    const ConfigNode engines = node.at("engines");
    for (const ConfigNode& engine : engines.entries()) core.engines.push_back(read_engine(engine));
    bool has_tensor = false;
    for (const auto& engine : core.engines) has_tensor = has_tensor || engine.name == "tensor";
    if (!has_tensor) engines.fail("needs a 'tensor' engine");
    core.tensor = read_tensor(node.at("tensor"));
    core.sbuf = read_on_chip_memory(node.at("sbuf"), false);
    core.psum = read_on_chip_memory(node.at("psum"), true);
    core.semaphores = node.at("semaphores").as_positive_u32();
    // Instructions name a semaphore in 16 bits, all ones meaning none (isa/instruction.h).
    if (core.semaphores > isa::kNoSemaphore)
        node.at("semaphores").fail(fmt::format("{} is more than the {} an instruction can name", core.semaphores,
                                               unsigned(isa::kNoSemaphore)));
    core.dma_engines = node.at("dma_engines").as_positive_u32();
    core.dma_queues_per_engine = node.at("dma_queues_per_engine").as_positive_u32();
    // A program names a core's DMA queue in 8 bits (isa/container.h).
    constexpr uint64_t kQueueNumbers = uint64_t(std::numeric_limits<decltype(isa::InstructionStream::queue)>::max()) + 1;
    if (uint64_t(core.dma_engines) * core.dma_queues_per_engine > kQueueNumbers)
        node.at("dma_queues_per_engine").fail(fmt::format("{} engines x {} queues is more than the {} DMA queues a "
                                                          "program can name",
                                                          core.dma_engines, core.dma_queues_per_engine, kQueueNumbers));
    core.dma_engine_bytes_per_s = positive(node.at("dma_engine_bytes_per_s"),
                                           Quantity::bytes_per_second);
    if (node.has("dma_engine_sustained_bytes_per_s")) {
        core.dma_engine_sustained_bytes_per_s =
            positive(node.at("dma_engine_sustained_bytes_per_s"), Quantity::bytes_per_second);
        if (core.dma_engine_sustained_bytes_per_s > core.dma_engine_bytes_per_s)
            node.at("dma_engine_sustained_bytes_per_s")
                .fail("is more than dma_engine_bytes_per_s, an engine's peak");
    }
    core.dma_transfer_overhead_s = node.at("dma_transfer_overhead_s").as_quantity(Quantity::seconds);
    if (node.has("dma_descriptor_s")) core.dma_descriptor_s = node.at("dma_descriptor_s").as_quantity(Quantity::seconds);
    core.sram_access_latency_cycles = optional_u32(node, "sram_access_latency_cycles");
    core.sram_full_rate_stride_bytes = optional_u32(node, "sram_full_rate_stride_bytes");
    core.control_instruction_cycles = optional_u32(node, "control_instruction_cycles");
    core.bn_aggr_cycles_per_3_elements = optional_u32(node, "bn_aggr_cycles_per_3_elements");
    core.sbuf_shared_port_engines = optional_engine_names(node, "sbuf_shared_port_engines", core.engines);
    core.psum_shared_port_engines = optional_engine_names(node, "psum_shared_port_engines", core.engines);
    return core;
}

BarSpec read_bar(const ConfigNode& node) {
    node.check_keys({"index", "size", "role"});
    BarSpec bar;
    const ConfigNode index = node.at("index");
    bar.index = index.as_u32();
    if (bar.index >= kPciBarSlots)
        index.fail(fmt::format("must be 0 to {} (a PCI header has {} BARs)", kPciBarSlots - 1,
                               kPciBarSlots));
    const ConfigNode size = node.at("size");
    bar.size_bytes = size.as_bytes();
    if (!is_power_of_two(bar.size_bytes)) size.fail("must be a power of two (PCI BAR sizes are)");
    const ConfigNode role = node.at("role");
    bar.role = role.as_string();
    if (!contains(kBarRoles, bar.role))
        role.fail(fmt::format("unknown BAR role (expected one of: {})", fmt::join(kBarRoles, ", ")));
    return bar;
}

PciSpec read_pci(const ConfigNode& node) {
    node.check_keys({"vendor_id", "device_id", "revision", "bars"});
    PciSpec pci;
    pci.vendor_id = static_cast<uint32_t>(node.at("vendor_id").as_unsigned(0xffff));
    pci.device_id = static_cast<uint32_t>(node.at("device_id").as_unsigned(0xffff));
    pci.revision = static_cast<uint32_t>(node.at("revision").as_unsigned(0xff));
    const ConfigNode bars = node.at("bars");
    for (const ConfigNode& item : bars.items()) {
        const BarSpec bar = read_bar(item);
        for (const auto& earlier : pci.bars) {
            if (earlier.index == bar.index)
                item.at("index").fail(fmt::format("BAR {} is defined twice", bar.index));
            if (earlier.role == bar.role)
                item.at("role").fail(fmt::format("two BARs have role '{}'", bar.role));
        }
        pci.bars.push_back(bar);
    }
    for (const char* role : {"registers", "device-memory"}) {
        bool found = false;
        for (const auto& bar : pci.bars) found = found || bar.role == role;
        if (!found) bars.fail(fmt::format("needs a BAR with role '{}'", role));
    }
    return pci;
}

PcieLinkSpec read_pcie(const ConfigNode& node) {
    node.check_keys({"generation", "lanes", "bytes_per_s", "latency_s"});
    PcieLinkSpec pcie;
    pcie.generation = node.at("generation").as_positive_u32();
    const ConfigNode lanes = node.at("lanes");
    pcie.lanes = lanes.as_u32();
    if (!is_power_of_two(pcie.lanes)) lanes.fail("must be a power of two (x1, x2, x4, x8, x16...)");
    pcie.bytes_per_s = positive(node.at("bytes_per_s"), Quantity::bytes_per_second);
    pcie.latency_s = positive(node.at("latency_s"), Quantity::seconds);
    return pcie;
}

DeviceMemorySpec read_memory(const ConfigNode& node) {
    node.check_keys({"type", "channels", "channel_bytes", "channel_stride_bytes", "bytes_per_s",
                     "latency_s", "refresh_interval_s", "refresh_time_s"});
    DeviceMemorySpec memory;
    memory.type = node.at("type").as_string();
    memory.channels = node.at("channels").as_positive_u32();
    memory.channel_bytes = positive_bytes(node.at("channel_bytes"));
    const ConfigNode stride = node.at("channel_stride_bytes");
    memory.channel_stride_bytes = stride.as_bytes();
    if (!is_power_of_two(memory.channel_stride_bytes))
        stride.fail("must be a power of two (the device decodes channel addresses by bits)");
    if (memory.channel_bytes > memory.channel_stride_bytes)
        stride.fail("must be at least channel_bytes (channels would overlap)");
    memory.bytes_per_s = positive(node.at("bytes_per_s"), Quantity::bytes_per_second);
    memory.latency_s = positive(node.at("latency_s"), Quantity::seconds);
    // Refresh: both keys or neither, and a refresh shorter than its interval.
    const auto interval = node.find("refresh_interval_s");
    const auto time = node.find("refresh_time_s");
    if (bool(interval) != bool(time))
        (interval ? *interval : *time).fail("refresh_interval_s and refresh_time_s go together (neither: no refresh)");
    if (interval) {
        memory.refresh_interval_s = positive(*interval, Quantity::seconds);
        memory.refresh_time_s = positive(*time, Quantity::seconds);
        if (memory.refresh_time_s >= memory.refresh_interval_s)
            time->fail("must be shorter than refresh_interval_s (the channel would never serve)");
    }
    return memory;
}

LinkSpec read_link(const ConfigNode& node) {
    node.check_keys({"version", "ports", "bytes_per_s", "latency_s", "collective_rings"});
    LinkSpec link;
    link.version = node.at("version").as_string();
    link.ports = node.at("ports").as_u32();
    // A chip without links may say ports: 0; one with links needs their speed.
    if (link.ports == 0) {
        link.bytes_per_s = node.at("bytes_per_s").as_quantity(Quantity::bytes_per_second);
        link.latency_s = node.at("latency_s").as_quantity(Quantity::seconds);
    } else {
        link.bytes_per_s = positive(node.at("bytes_per_s"), Quantity::bytes_per_second);
        link.latency_s = positive(node.at("latency_s"), Quantity::seconds);
    }
    if (const auto rings = node.find("collective_rings")) link.collective_rings = rings->as_positive_u32();
    return link;
}

ChipSpec read_chip(const ConfigNode& node, const NeuronCoreSpec& core) {
    node.check_keys({"product", "cores_per_device", "logical_neuroncore_config", "pci", "pcie",
                     "memory", "link", "registers", "firmware", "driver"});
    ChipSpec chip;
    chip.name = node.name();
    chip.generation_file = node.file();
    chip.core = core;
    chip.product = node.at("product").as_string();
    chip.cores_per_device = node.at("cores_per_device").as_positive_u32();
    if (const auto lnc = node.find("logical_neuroncore_config")) {
        chip.logical_neuroncore_config = lnc->as_positive_u32();
        if (chip.cores_per_device % chip.logical_neuroncore_config != 0)
            lnc->fail(fmt::format("must divide cores_per_device ({})", chip.cores_per_device));
    }
    chip.pci = read_pci(node.at("pci"));
    chip.pcie = read_pcie(node.at("pcie"));
    chip.memory = read_memory(node.at("memory"));
    chip.link = read_link(node.at("link"));
    if (const auto registers = node.find("registers")) {
        uint64_t register_bar_bytes = 0;
        for (const auto& bar : chip.pci.bars)
            if (bar.role == "registers") register_bar_bytes = bar.size_bytes;
        chip.registers = read_register_map(*registers, register_bar_bytes, chip.cores_per_device,
                                           chip.cores_per_device * chip.core.dma_engines, chip.memory.channels);
        // Each engine's queue blocks must stay inside its M2S and S2M register files, or queue n of
        // one engine would be another engine's registers.
        const UdmaRegisterSpec& udma = chip.registers.udma;
        const uint64_t queue_blocks = udma.queues + uint64_t(chip.core.dma_queues_per_engine) * udma.queue_stride;
        if (queue_blocks > udma.s2m || udma.s2m + queue_blocks > udma.engine_stride)
            registers->fail(fmt::format("{} DMA queues per engine ({:#x} bytes of queue registers from {:#x}) do not fit "
                                        "in an engine's register files (s2m at {:#x}, engine_stride {:#x})",
                                        chip.core.dma_queues_per_engine, chip.core.dma_queues_per_engine * udma.queue_stride,
                                        udma.queues, udma.s2m, udma.engine_stride));
    }
    if (const auto firmware = node.find("firmware")) chip.firmware = read_firmware(*firmware);
    if (const auto driver = node.find("driver")) chip.driver = read_driver(*driver);
    for (const auto& bar : chip.pci.bars) {
        if (bar.role == "device-memory" && bar.size_bytes < chip.memory.total_bytes())
            node.at("pci").fail(fmt::format(
                "device-memory BAR ({} bytes) is smaller than the device memory ({} bytes)",
                bar.size_bytes, chip.memory.total_bytes()));
    }
    return chip;
}

}  // namespace

std::vector<ChipDefinition> read_chips(const ConfigNode& neuron_core, const ConfigNode& chips) {
    const NeuronCoreSpec core = read_neuron_core(neuron_core);
    std::vector<ChipDefinition> result;
    const auto entries = chips.entries();
    if (entries.empty()) chips.fail("needs at least one chip");
    for (const ConfigNode& node : entries) result.push_back({read_chip(node, core), node});
    return result;
}

}  // namespace nsim::config
