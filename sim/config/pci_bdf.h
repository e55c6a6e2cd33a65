// PCI addresses as neuron-ls prints them: "bb:dd.f", or "dddd:bb:dd.f" with a domain.
#pragma once

#include <optional>
#include <string>

namespace nsim::config {

// The canonical lower-case form (short when the domain is 0000), or nothing if the text is not a
// PCI bus:device.function address.
std::optional<std::string> canonical_pci_bdf(const std::string& text);

// The long lower-case form, always with the domain ("0000:cc:00.0", as neuron-ls 2.25+ prints it in
// its default view), or nothing if the text is not an address.
std::optional<std::string> long_pci_bdf(const std::string& text);

}  // namespace nsim::config
