// The order people list instance sizes in: by family, then by size (xlarge, 2xlarge, 6xlarge,
// 24xlarge...), so that "valid instances: ..." reads like the EC2 pricing page, not like ASCII.
#pragma once

#include <string>

namespace nsim::config {

bool instance_name_less(const std::string& a, const std::string& b);

}  // namespace nsim::config
