#include "platform/platform_description.h"

#include <fmt/format.h>

namespace nsim::sim {

using nlohmann::json;

std::string format_bytes(uint64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 5) { value /= 1024; ++unit; }
    if (value == uint64_t(value)) return fmt::format("{} {}", uint64_t(value), units[unit]);
    return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string format_rate(double bytes_per_s) {
    static const char* units[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
    int unit = 0;
    while (bytes_per_s >= 1024 && unit < 4) { bytes_per_s /= 1024; ++unit; }
    return fmt::format("{:.1f} {}", bytes_per_s, units[unit]);
}

static json describe_core(const NeuronCore& core) {
    json engines = json::array();
    for (const auto& e : core.engines())
        engines.push_back({{"name", e->spec().name}, {"clock_hz", e->spec().clock_hz}});
    return {{"index", core.index()},
            {"name", core.basename()},
            {"engines", engines},
            {"sbuf_bytes", core.sbuf().size()},
            {"sbuf_partitions", core.spec().sbuf.partitions},
            {"psum_bytes", core.psum().size()},
            {"psum_partitions", core.spec().psum.partitions}};
}

static json describe_device(const NeuronDevice& device) {
    const PciConfigSpace& pci = device.endpoint().config_space();
    json bars = json::array();
    for (const auto& bar : pci.bars()) {
        std::string role;
        for (const auto& spec : device.chip().pci.bars)
            if (spec.index == bar.index) role = spec.role;
        const auto base = pci.bar_base(bar.index);
        bars.push_back({{"index", bar.index},
                        {"role", role},
                        {"address", base ? fmt::format("{:#x}", *base) : "unassigned"},
                        {"size_bytes", bar.size}});
    }
    json channels = json::array();
    uint64_t memory_bytes = 0;
    for (const auto& channel : device.memory_channels()) {
        channels.push_back({{"name", channel->basename()}, {"bytes", channel->size()}});
        memory_bytes += channel->size();
    }
    json cores = json::array();
    for (const auto& core : device.cores()) cores.push_back(describe_core(*core));
    const config::ChipSpec& chip = device.chip();
    return {{"index", device.index()},
            {"pci_bdf", device.endpoint().address().to_string()},
            {"vendor_id", fmt::format("{:#06x}", pci.vendor_id())},
            {"device_id", fmt::format("{:#06x}", pci.device_id())},
            {"revision", pci.revision()},
            {"bars", bars},
            {"memory_bytes", memory_bytes},
            {"memory", {{"type", chip.memory.type}, {"channels", channels}, {"bytes_per_s", chip.memory.bytes_per_s}}},
            {"pcie", {{"generation", chip.pcie.generation}, {"lanes", chip.pcie.lanes},
                      {"bytes_per_s", chip.pcie.bytes_per_s}}},
            {"cores", cores},
            {"dma_engines", device.dma_engines().size()},
            {"dma_queues_per_engine", chip.core.dma_queues_per_engine},
            {"connected_to", device.linked_devices()}};
}

json describe_platform(const Platform& platform) {
    const config::HostSpec& spec = platform.spec();
    json devices = json::array();
    uint64_t cores = 0;
    for (const auto& d : platform.devices()) {
        devices.push_back(describe_device(*d));
        cores += d->cores().size();
    }
    json links = json::array();
    for (const auto& l : platform.links())
        links.push_back({{"devices", {l->device_a(), l->device_b()}}, {"bytes_per_s", l->a_to_b().bytes_per_s()}});
    return {{"instance", spec.instance.name},
            {"chip", spec.chip.name},
            {"product", spec.chip.product},
            {"neuron_core", spec.chip.core.name},
            {"vcpus", spec.instance.vcpus},
            {"host_memory_bytes", spec.instance.host_memory_bytes},
            {"neuron_cores", cores},
            {"devices", devices},
            {"links", links}};
}

static std::string join(const json& values, const char* separator) {
    std::string out;
    for (const auto& v : values) {
        if (!out.empty()) out += separator;
        out += v.is_string() ? v.get<std::string>() : v.dump();
    }
    return out;
}

std::string format_platform(const json& d) {
    std::string out = fmt::format("{}: {} x {} ({}), {} NeuronCores, {} vCPUs, {} host memory\n",
                                  d["instance"].get<std::string>(), d["devices"].size(),
                                  d["product"].get<std::string>(), d["neuron_core"].get<std::string>(),
                                  d["neuron_cores"].get<uint64_t>(), d["vcpus"].get<uint64_t>(),
                                  format_bytes(d["host_memory_bytes"].get<uint64_t>()));
    for (const auto& dev : d["devices"]) {
        const auto& mem = dev["memory"];
        out += fmt::format("device {}  pci {}  [{}:{} rev {}]  PCIe gen{} x{} ({})\n", dev["index"].get<int>(),
                           dev["pci_bdf"].get<std::string>(), dev["vendor_id"].get<std::string>().substr(2),
                           dev["device_id"].get<std::string>().substr(2), dev["revision"].get<int>(),
                           dev["pcie"]["generation"].get<int>(), dev["pcie"]["lanes"].get<int>(),
                           format_rate(dev["pcie"]["bytes_per_s"].get<double>()));
        for (const auto& bar : dev["bars"])
            out += fmt::format("  BAR{}  {:<20} {:>16}  {}\n", bar["index"].get<int>(), bar["role"].get<std::string>(),
                               bar["address"].get<std::string>(), format_bytes(bar["size_bytes"].get<uint64_t>()));
        out += fmt::format("  memory: {} {} in {} channels of {}, {}\n", format_bytes(dev["memory_bytes"].get<uint64_t>()),
                           mem["type"].get<std::string>(), mem["channels"].size(),
                           format_bytes(mem["channels"][0]["bytes"].get<uint64_t>()),
                           format_rate(mem["bytes_per_s"].get<double>()));
        const auto& cores = dev["cores"];
        json names = json::array(), engines = json::array();
        for (const auto& c : cores) names.push_back(c["name"]);
        for (const auto& e : cores[0]["engines"]) engines.push_back(e["name"]);
        out += fmt::format("  cores:  {} ({}); SBUF {} ({} partitions), PSUM {} each\n", join(names, " "),
                           join(engines, ", "), format_bytes(cores[0]["sbuf_bytes"].get<uint64_t>()),
                           cores[0]["sbuf_partitions"].get<int>(), format_bytes(cores[0]["psum_bytes"].get<uint64_t>()));
        out += fmt::format("  dma:    {} engines x {} queues\n", dev["dma_engines"].get<int>(),
                           dev["dma_queues_per_engine"].get<int>());
        out += fmt::format("  links:  {}\n", dev["connected_to"].empty() ? "none" : "devices " + join(dev["connected_to"], ", "));
    }
    return out;
}

}  // namespace nsim::sim
