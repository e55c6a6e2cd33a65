#include "config/config_reader.h"

#include <fmt/format.h>

#include "config/chip_reader.h"
#include "config/instance_reader.h"
#include "config/yaml_document.h"

namespace nsim::config {

void ConfigReader::read_file(const std::filesystem::path& file) {
    const ConfigNode root = load_yaml_document(file);
    if (root.is_null())
        root.fail("the file is empty; expected 'neuron_core' and 'chips', and/or 'instances'");
    if (!root.is_map()) root.fail_expected("a map with 'neuron_core' and 'chips', and/or 'instances'");
    root.check_keys({"neuron_core", "chips", "instances"});

    const auto core = root.find("neuron_core");
    const auto chips = root.find("chips");
    const auto instances = root.find("instances");
    // A chip is a NeuronCore plus its packaging; one without the other describes nothing.
    if (core && !chips) root.at("chips");
    if (chips && !core) root.at("neuron_core");
    if (!chips && !instances) root.fail("expected 'neuron_core' and 'chips', and/or 'instances'");

    if (chips) {
        for (auto& [spec, node] : read_chips(*core, *chips)) {
            const auto earlier = chip_origin_.find(spec.name);
            if (earlier != chip_origin_.end())
                node.fail(fmt::format("chip '{}' is already defined at {}", spec.name,
                                      earlier->second));
            chip_origin_[spec.name] = node.location();
            set_.chips_[spec.name] = spec;
        }
    }
    if (instances) {
        const ChipCatalog catalog{
            [this](const std::string& name) -> const ChipSpec* {
                const auto it = set_.chips_.find(name);
                return it == set_.chips_.end() ? nullptr : &it->second;
            },
            [this] { return set_.chip_names(); }};
        for (const ConfigNode& node : instances->entries()) {
            const auto earlier = instance_origin_.find(node.name());
            if (earlier != instance_origin_.end())
                node.fail(fmt::format("instance '{}' is already defined at {}", node.name(),
                                      earlier->second));
            InstanceSpec spec = read_instance(node, catalog);
            instance_origin_[spec.name] = node.location();
            set_.instances_[spec.name] = std::move(spec);
        }
    }
}

}  // namespace nsim::config
