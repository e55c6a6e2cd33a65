#include "config/instance_reader.h"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "config/id_list.h"
#include "config/link_topology.h"
#include "config/pci_bdf.h"

namespace nsim::config {
namespace {

const ChipSpec& read_chip_name(const ConfigNode& node, const ChipCatalog& chips) {
    const std::string name = node.as_string();
    const ChipSpec* chip = chips.find(name);
    if (!chip) node.fail(fmt::format("unknown chip '{}'; valid chips: {}", name, fmt::join(chips.names(), ", ")));
    return *chip;
}

std::vector<std::string> read_bdfs(const ConfigNode& node, uint32_t devices) {
    const auto items = node.items();
    if (items.size() != devices)
        node.fail(fmt::format("{} device(s) need {} PCI address(es), got {}", devices, devices,
                              items.size()));
    std::vector<std::string> bdfs;
    for (const ConfigNode& item : items) {
        const auto bdf = canonical_pci_bdf(item.as_string());
        if (!bdf) item.fail_expected("a PCI address such as 00:04.0");
        const auto earlier = std::find(bdfs.begin(), bdfs.end(), *bdf);
        if (earlier != bdfs.end())
            item.fail(fmt::format("PCI address {} is already used by device {}", *bdf,
                                  earlier - bdfs.begin()));
        bdfs.push_back(*bdf);
    }
    return bdfs;
}

// numa_node_cpus: per node, a cpulist of vCPUs that exist and belong to no other node.
std::vector<std::vector<uint32_t>> read_numa_node_cpus(const ConfigNode& node, uint32_t vcpus) {
    std::vector<std::vector<uint32_t>> nodes;
    std::vector<int> owner(vcpus, -1);
    for (const ConfigNode& item : node.items()) {
        const auto cpus = parse_id_list(item.as_string());
        if (!cpus) item.fail_expected("a CPU list such as 0-23,48-71");
        for (uint32_t cpu : *cpus) {
            if (cpu >= vcpus)
                item.fail(fmt::format("CPU {} does not exist (the instance has {} vCPUs, 0-{})", cpu, vcpus, vcpus - 1));
            if (owner[cpu] >= 0) item.fail(fmt::format("CPU {} is already in NUMA node {}", cpu, owner[cpu]));
            owner[cpu] = int(nodes.size());
        }
        nodes.push_back(*cpus);
    }
    if (nodes.empty()) node.fail("must name at least one NUMA node");
    return nodes;
}

std::vector<int32_t> read_device_numa_nodes(const ConfigNode& node, uint32_t devices, size_t numa_nodes) {
    const auto items = node.items();
    if (items.size() != devices)
        node.fail(fmt::format("{} device(s) need {} NUMA node(s), got {}", devices, devices, items.size()));
    std::vector<int32_t> nodes;
    for (const ConfigNode& item : items) {
        const uint32_t numa = item.as_u32();
        if (numa >= numa_nodes)
            item.fail(fmt::format("NUMA node {} does not exist (numa_node_cpus has {})", numa, numa_nodes));
        nodes.push_back(int32_t(numa));
    }
    return nodes;
}

// collective_rank_counts: distinct rank counts of at least 2, none more than the instance's NeuronCores.
std::vector<uint32_t> read_collective_rank_counts(const ConfigNode& node, uint32_t cores) {
    std::vector<uint32_t> counts;
    for (const ConfigNode& item : node.items()) {
        const uint32_t count = item.as_u32();
        if (count < 2 || count > cores)
            item.fail(fmt::format("a collective needs 2 to {} ranks (the instance's NeuronCores), not {}", cores, count));
        if (std::find(counts.begin(), counts.end(), count) != counts.end())
            item.fail(fmt::format("{} is listed twice", count));
        counts.push_back(count);
    }
    if (counts.empty()) node.fail("must name at least one rank count (leave the key out to allow any)");
    std::sort(counts.begin(), counts.end());
    return counts;
}

// The declared shape: "none", "chain", "ring" or {torus: [rows, cols]}.
struct DeclaredTopology {
    std::string kind;
    std::vector<uint32_t> shape;
    NeighbourLists links;
};

DeclaredTopology read_topology(const ConfigNode& node, uint32_t devices) {
    DeclaredTopology topology;
    if (node.is_map()) {
        node.check_keys({"torus"});
        const ConfigNode dims = node.at("torus");
        const auto items = dims.items();
        if (items.size() != 2) dims.fail_expected("[rows, cols]");
        topology.kind = "torus";
        topology.shape = {items[0].as_positive_u32(), items[1].as_positive_u32()};
        if (uint64_t(topology.shape[0]) * topology.shape[1] != devices)
            dims.fail(fmt::format("a {} x {} torus has {} devices, the instance has {}",
                                  topology.shape[0], topology.shape[1],
                                  uint64_t(topology.shape[0]) * topology.shape[1], devices));
        topology.links = torus_links(topology.shape[0], topology.shape[1]);
        return topology;
    }
    if (!node.is_scalar()) node.fail_expected("none, chain, ring or {torus: [rows, cols]}");
    topology.kind = node.as_string();
    if (topology.kind == "none") topology.links = NeighbourLists(devices);
    else if (topology.kind == "chain") topology.links = chain_links(devices);
    else if (topology.kind == "ring") topology.links = ring_links(devices);
    else node.fail_expected("none, chain, ring or {torus: [rows, cols]}");
    return topology;
}

NeighbourLists read_connected_to(const ConfigNode& node, uint32_t devices) {
    const auto lists = node.items();
    if (lists.size() != devices)
        node.fail(fmt::format("{} device(s) need {} neighbour list(s), got {}", devices, devices,
                              lists.size()));
    NeighbourLists links(devices);
    for (uint32_t device = 0; device < devices; ++device) {
        for (const ConfigNode& item : lists[device].items()) {
            const uint32_t peer = item.as_u32();
            if (peer == device) item.fail(fmt::format("device {} is linked to itself", device));
            if (peer >= devices)
                item.fail(fmt::format("device {} does not exist (devices are 0 to {})", peer,
                                      devices - 1));
            auto& list = links[device];
            if (std::find(list.begin(), list.end(), peer) != list.end())
                item.fail(fmt::format("device {} is linked to {} twice", device, peer));
            list.push_back(peer);
        }
    }
    for (uint32_t device = 0; device < devices; ++device) {
        const auto items = lists[device].items();
        for (std::size_t k = 0; k < links[device].size(); ++k) {
            const uint32_t peer = links[device][k];
            const auto& back = links[peer];
            if (std::find(back.begin(), back.end(), device) == back.end())
                items[k].fail(fmt::format("device {} links to {} but device {} does not link back",
                                          device, peer, peer));
        }
    }
    return links;
}

std::vector<uint32_t> sorted(std::vector<uint32_t> values) {
    std::sort(values.begin(), values.end());
    return values;
}

void check_against_declared(const ConfigNode& node, const NeighbourLists& links,
                            const DeclaredTopology& declared) {
    const auto lists = node.items();
    for (std::size_t device = 0; device < links.size(); ++device) {
        if (sorted(links[device]) != sorted(declared.links[device]))
            lists[device].fail(fmt::format("device {} links to [{}] but the declared {} gives [{}]",
                                           device, fmt::join(links[device], ", "), declared.kind,
                                           fmt::join(declared.links[device], ", ")));
    }
}

void check_ports(const ConfigNode& node, const NeighbourLists& links, const ChipSpec& chip) {
    for (std::size_t device = 0; device < links.size(); ++device) {
        if (links[device].size() > chip.link.ports)
            node.fail(fmt::format("device {} has {} links but a {} has {} link port(s)", device,
                                  links[device].size(), chip.name, chip.link.ports));
    }
}

// efa: {devices, bytes_per_s, latency_s, collective_algorithm}; devices need not divide the chips, but
// each sits on one chip (training.md A1.1), so there are no more of them than devices.
EfaSpec read_efa(const ConfigNode& node, uint32_t devices) {
    node.check_keys({"devices", "bytes_per_s", "latency_s", "collective_algorithm"});
    EfaSpec efa;
    const ConfigNode count = node.at("devices");
    efa.devices = count.as_positive_u32();
    if (efa.devices > devices)
        count.fail(fmt::format("{} EFA devices on {} Neuron device(s): each EFA sits on a Neuron device of its own",
                               efa.devices, devices));
    const ConfigNode rate = node.at("bytes_per_s");
    efa.bytes_per_s = rate.as_quantity(Quantity::bytes_per_second);
    if (efa.bytes_per_s <= 0) rate.fail("must be greater than zero");
    efa.latency_s = node.at("latency_s").as_quantity(Quantity::seconds);
    const ConfigNode algorithm = node.at("collective_algorithm");
    efa.collective_algorithm = algorithm.as_string();
    if (efa.collective_algorithm != "hierarchical") algorithm.fail_expected("hierarchical");
    return efa;
}

}  // namespace

InstanceSpec read_instance(const ConfigNode& node, const ChipCatalog& chips) {
    node.check_keys({"chip", "devices", "vcpus", "host_memory_bytes", "pci_bdfs", "topology",
                     "connected_to", "link_bytes_per_s", "host_copy_bytes_per_s", "numa_node_cpus",
                     "device_numa_nodes", "collective_rank_counts", "efa"});
    InstanceSpec instance;
    instance.name = node.name();
    const ChipSpec& chip = read_chip_name(node.at("chip"), chips);
    instance.chip = chip.name;
    instance.devices = node.at("devices").as_positive_u32();
    instance.vcpus = node.at("vcpus").as_positive_u32();
    const ConfigNode host_memory = node.at("host_memory_bytes");
    instance.host_memory_bytes = host_memory.as_bytes();
    if (instance.host_memory_bytes == 0) host_memory.fail("must be greater than zero");
    instance.pci_bdfs = read_bdfs(node.at("pci_bdfs"), instance.devices);
    if (const auto host_copy = node.find("host_copy_bytes_per_s")) {
        instance.host_copy_bytes_per_s = host_copy->as_quantity(Quantity::bytes_per_second);
        if (instance.host_copy_bytes_per_s <= 0) host_copy->fail("must be greater than zero");
    }

    std::optional<DeclaredTopology> declared;
    if (const auto topology = node.find("topology")) {
        declared = read_topology(*topology, instance.devices);
        check_ports(*topology, declared->links, chip);
    }
    if (const auto explicit_links = node.find("connected_to")) {
        instance.connected_to = read_connected_to(*explicit_links, instance.devices);
        check_ports(*explicit_links, instance.connected_to, chip);
        if (declared) check_against_declared(*explicit_links, instance.connected_to, *declared);
        instance.topology = declared ? declared->kind : "custom";
    } else if (declared) {
        instance.connected_to = declared->links;
        instance.topology = declared->kind;
    } else {
        instance.connected_to = NeighbourLists(instance.devices);
        instance.topology = "none";
    }
    if (declared) instance.topology_shape = declared->shape;

    if (const auto link_rate = node.find("link_bytes_per_s")) {
        instance.link_bytes_per_s = link_rate->as_quantity(Quantity::bytes_per_second);
        if (instance.link_bytes_per_s <= 0) link_rate->fail("must be greater than zero");
    }

    if (const auto rank_counts = node.find("collective_rank_counts"))
        instance.collective_rank_counts =
            read_collective_rank_counts(*rank_counts, instance.devices * chip.cores_per_device);

    if (const auto efa = node.find("efa")) instance.efa = read_efa(*efa, instance.devices);

    const auto numa_cpus = node.find("numa_node_cpus");
    const auto device_numa = node.find("device_numa_nodes");
    if (bool(numa_cpus) != bool(device_numa))
        (numa_cpus ? *numa_cpus : *device_numa).fail("numa_node_cpus and device_numa_nodes go together (neither: one NUMA node)");
    if (numa_cpus) {
        instance.numa_node_cpus = read_numa_node_cpus(*numa_cpus, instance.vcpus);
        instance.device_numa_nodes = read_device_numa_nodes(*device_numa, instance.devices, instance.numa_node_cpus.size());
    } else {
        instance.device_numa_nodes.assign(instance.devices, -1);
    }
    return instance;
}

}  // namespace nsim::config
