#include "config/config_node.h"

#include <cmath>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "config/config_set.h"

namespace nsim::config {
namespace {

int line_of(const YAML::Node& node, int fallback) {
    const YAML::Mark mark = node.Mark();
    return mark.is_null() ? fallback : mark.line + 1;
}

// Values are quoted back to the user; keep the message on one line and short.
std::string quote(const std::string& text) {
    std::string shown;
    for (char c : text) shown += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    return "'" + shown + "'";
}

}  // namespace

ConfigNode::ConfigNode(YAML::Node root, std::string file)
    : ConfigNode(root, std::make_shared<const std::string>(std::move(file)), line_of(root, 1), "",
                 "") {}

ConfigNode::ConfigNode(YAML::Node node, std::shared_ptr<const std::string> file, int line,
                       std::string key, std::string name)
    : node_(std::move(node)), file_(std::move(file)), line_(line), key_(std::move(key)),
      name_(std::move(name)) {}

std::string ConfigNode::location() const { return fmt::format("{}:{}", *file_, line_); }

std::string ConfigNode::message(const std::string& problem) const {
    std::string text = key_.empty() ? fmt::format("{}: {}", location(), problem)
                                    : fmt::format("{}: key '{}': {}", location(), key_, problem);
    // A key may be a quoted string holding a line break; the error stays one line regardless.
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

void ConfigNode::fail(const std::string& problem) const { throw ConfigError(message(problem)); }

bool ConfigNode::is_null() const { return !node_.IsDefined() || node_.IsNull(); }
bool ConfigNode::is_map() const { return node_.IsMap(); }
bool ConfigNode::is_list() const { return node_.IsSequence(); }
bool ConfigNode::is_scalar() const { return node_.IsScalar(); }

std::string ConfigNode::describe() const {
    if (is_null()) return "nothing";
    if (is_map()) return "a map";
    if (is_list()) return "a list";
    return quote(node_.Scalar());
}

void ConfigNode::fail_expected(const std::string& what) const {
    fail(fmt::format("expected {}, got {}", what, describe()));
}

void ConfigNode::expect_map() const {
    if (!is_map()) fail_expected("a map");
}

ConfigNode ConfigNode::child(const YAML::Node& key_node, const YAML::Node& value) const {
    const std::string name = key_node.Scalar();
    // Errors about a value point at its key's line: for a nested map that is the line naming it.
    return ConfigNode(value, file_, line_of(key_node, line_), key_.empty() ? name : key_ + "." + name,
                      name);
}

std::shared_ptr<const ConfigNode::Entries> ConfigNode::checked_entries() const {
    expect_map();
    auto entries = std::make_shared<Entries>();
    std::set<std::string_view> seen;  // views of the keys' own text, which the document holds
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        if (!it->first.IsScalar()) {
            ConfigNode(it->first, file_, line_of(it->first, line_), key_, name_)
                .fail("map keys must be plain names");
        }
        if (!seen.insert(it->first.Scalar()).second) child(it->first, it->second).fail("defined twice in this map");
        entries->emplace_back(it->first, it->second);
    }
    return entries;
}

template <class Visit>
void ConfigNode::for_each_entry(Visit&& visit) const {
    if (!entries_) entries_ = checked_entries();
    for (const auto& [key, value] : *entries_) visit(key, value);
}

std::vector<ConfigNode> ConfigNode::entries() const {
    std::vector<ConfigNode> result;
    for_each_entry([&](const YAML::Node& key, const YAML::Node& value) { result.push_back(child(key, value)); });
    return result;
}

void ConfigNode::check_keys(const std::vector<std::string>& allowed) const {
    for (const ConfigNode& entry : entries()) {
        bool known = false;
        for (const auto& name : allowed) known = known || name == entry.name();
        if (!known) entry.fail(fmt::format("unknown key (expected one of: {})", fmt::join(allowed, ", ")));
    }
}

// Without building a node for every entry: the readers look up keys one by one, and building them
// all for each lookup was most of the time reading the configuration took.
std::optional<ConfigNode> ConfigNode::find(const std::string& key) const {
    std::optional<ConfigNode> found;
    for_each_entry([&](const YAML::Node& key_node, const YAML::Node& value) {
        if (!found && key_node.Scalar() == key) found = child(key_node, value);
    });
    return found;
}

bool ConfigNode::has(const std::string& key) const { return find(key).has_value(); }

ConfigNode ConfigNode::at(const std::string& key) const {
    if (auto found = find(key)) return *found;
    ConfigNode(node_, file_, line_, key_.empty() ? key : key_ + "." + key, key).fail("missing");
}

std::vector<ConfigNode> ConfigNode::items() const {
    if (!is_list()) fail_expected("a list");
    std::vector<ConfigNode> result;
    for (std::size_t i = 0; i < node_.size(); ++i) {
        const std::string name = fmt::format("[{}]", i);
        result.push_back(ConfigNode(node_[i], file_, line_of(node_[i], line_), key_ + name, name));
    }
    return result;
}

std::string ConfigNode::as_string() const {
    if (!is_scalar() || node_.Scalar().empty()) fail_expected("a name");
    return node_.Scalar();
}

uint64_t ConfigNode::as_unsigned(uint64_t max) const {
    if (!is_scalar()) fail_expected("an unsigned integer");
    const std::string& text = node_.Scalar();
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const std::string digits = hex ? text.substr(2) : text;
    if (digits.empty()) fail_expected("an unsigned integer");
    uint64_t value = 0;
    const uint64_t base = hex ? 16 : 10;
    for (char c : digits) {
        uint64_t digit;
        if (c >= '0' && c <= '9') digit = uint64_t(c - '0');
        else if (hex && c >= 'a' && c <= 'f') digit = uint64_t(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F') digit = uint64_t(c - 'A' + 10);
        else fail_expected("an unsigned integer");
        if (value > (max - digit) / base) fail(fmt::format("{} is too large (at most {})", text, max));
        value = value * base + digit;
    }
    return value;
}

uint32_t ConfigNode::as_u32() const { return static_cast<uint32_t>(as_unsigned(UINT32_MAX)); }

uint32_t ConfigNode::as_positive_u32() const {
    const uint32_t value = as_u32();
    if (value == 0) fail("must be greater than zero");
    return value;
}

double ConfigNode::as_quantity(Quantity kind) const {
    if (!is_scalar()) fail_expected(quantity_description(kind));
    const auto value = parse_quantity(node_.Scalar(), kind);
    if (!value) fail_expected(quantity_description(kind));
    // Simulated time is 64-bit picoseconds (213 days) and sums of these durations must stay inside
    // it; no chip or driver timing comes near a day.
    constexpr double kMostSeconds = 86400;
    if (kind == Quantity::seconds && *value > kMostSeconds)
        fail(fmt::format("{} is longer than a day, beyond any hardware or driver timing", quote(node_.Scalar())));
    return *value;
}

uint64_t ConfigNode::as_bytes() const {
    const double value = as_quantity(Quantity::bytes);
    // Doubles hold every integer below 2^53 exactly; larger byte counts are not plausible here.
    if (value != std::floor(value) || value >= std::ldexp(1.0, 53))
        fail(fmt::format("{} is not a whole number of bytes", quote(node_.Scalar())));
    return static_cast<uint64_t>(value);
}

}  // namespace nsim::config
