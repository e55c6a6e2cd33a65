#include "config/instance_order.h"

#include <cctype>
#include <tuple>

namespace nsim::config {
namespace {

// "trn1.32xlarge" -> ("trn1", 32, "xlarge"); a size without a number ("xlarge") counts as 1.
std::tuple<std::string, unsigned long long, std::string> sort_key(const std::string& name) {
    const auto dot = name.find('.');
    if (dot == std::string::npos) return {name, 0, ""};
    const std::string family = name.substr(0, dot);
    std::string size = name.substr(dot + 1);
    std::size_t digits = 0;
    while (digits < size.size() && digits < 18 && std::isdigit(static_cast<unsigned char>(size[digits])))
        ++digits;
    const unsigned long long multiple = digits ? std::stoull(size.substr(0, digits)) : 1;
    return {family, multiple, size.substr(digits)};
}

}  // namespace

bool instance_name_less(const std::string& a, const std::string& b) {
    const auto ka = sort_key(a);
    const auto kb = sort_key(b);
    if (ka != kb) return ka < kb;
    return a < b;
}

}  // namespace nsim::config
