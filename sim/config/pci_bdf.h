// PCI addresses as neuron-ls prints them: "bb:dd.f", or "dddd:bb:dd.f" with a domain.
#pragma once

#include <optional>
#include <string>

namespace nsim::config {

// The canonical lower-case form (short when the domain is 0000), or nothing if the text is not a
// PCI bus:device.function address.
std::optional<std::string> canonical_pci_bdf(const std::string& text);

}  // namespace nsim::config
