// Parsing one YAML file. yaml-cpp's exceptions carry their own "yaml-cpp: error at line..."
// text; here they become our one-line ConfigError naming file, line and (best guess) key.
#pragma once

#include <filesystem>

#include "config/config_node.h"

namespace nsim::config {

ConfigNode load_yaml_document(const std::filesystem::path& file);

}  // namespace nsim::config
