// A YAML node together with where it came from (file, line, dotted key), so that every problem
// found while reading it becomes one ConfigError line: "FILE:LINE: key 'a.b.c': message".
// All yaml-cpp access of the readers goes through here; none of its exceptions escape.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/quantity.h"

namespace nsim::config {

class ConfigNode {
public:
    // The document root of a file.
    ConfigNode(YAML::Node root, std::string file);

    const std::string& file() const { return *file_; }
    int line() const { return line_; }             // 1-based
    const std::string& key() const { return key_; } // dotted path from the document root
    const std::string& name() const { return name_; } // the map key (or "[i]") naming this node
    std::string location() const;                  // "FILE:LINE"

    // The one-line error text for a problem with this node, and throwing it as ConfigError.
    std::string message(const std::string& problem) const;
    [[noreturn]] void fail(const std::string& problem) const;
    // "expected <what>, got <this node's value>".
    [[noreturn]] void fail_expected(const std::string& what) const;

    bool is_null() const;
    bool is_map() const;
    bool is_list() const;
    bool is_scalar() const;

    // Maps. Each checks that this node is a map, that no key is repeated and that every key is a
    // plain name; `allowed` also rejects any key not in the list.
    void check_keys(const std::vector<std::string>& allowed) const;
    bool has(const std::string& key) const;
    ConfigNode at(const std::string& key) const;   // a missing key is an error
    std::optional<ConfigNode> find(const std::string& key) const;
    std::vector<ConfigNode> entries() const;       // in file order

    // Lists.
    std::vector<ConfigNode> items() const;

    // Scalars.
    std::string as_string() const;                 // non-empty
    uint64_t as_unsigned(uint64_t max = UINT64_MAX) const;  // decimal or 0x hex
    uint32_t as_u32() const;
    uint32_t as_positive_u32() const;             // as_u32, and not zero
    double as_quantity(Quantity kind) const;       // a number with unit; a plain number is in base units
    uint64_t as_bytes() const;                     // a size with unit, a whole number of bytes

private:
    ConfigNode(YAML::Node node, std::shared_ptr<const std::string> file, int line, std::string key,
               std::string name);
    ConfigNode child(const YAML::Node& key_node, const YAML::Node& value) const;
    std::string describe() const;  // what this node is, for "expected X, got Y"
    void expect_map() const;
    // A map's entries in file order, once checked (keys plain names, none repeated; the first
    // problem throws). Kept after the first lookup: yaml-cpp walks a map by copying its nodes, and
    // the readers look up a map's keys one by one.
    using Entries = std::vector<std::pair<YAML::Node, YAML::Node>>;
    std::shared_ptr<const Entries> checked_entries() const;
    // Calls visit(key, value) for each entry in file order.
    template <class Visit>
    void for_each_entry(Visit&& visit) const;

    YAML::Node node_;
    std::shared_ptr<const std::string> file_;
    int line_;
    std::string key_;
    std::string name_;
    mutable std::shared_ptr<const Entries> entries_;  // null until the first lookup
};

// What the readers check of BAR sizes, ring sizes and strides.
inline bool is_power_of_two(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace nsim::config
