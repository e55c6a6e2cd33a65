#include "sysfs_tree.h"

#include <cctype>
#include <fstream>

#include <fmt/format.h>

namespace nsim::driver {
namespace fs = std::filesystem;

namespace {

// "inf2.xlarge" -> "Inf2", the arch_instance_suffix style of the real tree.
std::string instance_family(const std::string& instance) {
    std::string family = instance.substr(0, instance.find('.'));
    if (!family.empty()) family[0] = char(std::toupper(static_cast<unsigned char>(family[0])));
    return family;
}

// Whether `file` is a regular file holding exactly `text`. The size is checked before anything is
// read: the tree is in a directory other processes share, and a file there replaced by a link to
// /dev/zero or by a huge one is simply rewritten (write_file replaces it), never read.
bool holds(const fs::path& file, const std::string& text) {
    std::error_code error;
    if (!fs::is_regular_file(file, error) || fs::file_size(file, error) != text.size() || error) return false;
    std::ifstream in(file, std::ios::binary);
    std::string current(text.size(), '\0');
    return in.read(current.data(), std::streamsize(current.size())) && current == text;
}

}  // namespace

void publish_sysfs(const HostState& state, const config::HostSpec& spec, const MachineRecord& machine) {
    const fs::path root = state.sysfs_dir() / "class" / "neuron_device";
    for (const DeviceRecord& device : machine.devices) {
        const fs::path dir = root / fmt::format("neuron{}", device.index);
        // Only what changed is rewritten: an execution changes one counter, not the tree.
        auto put = [&](const fs::path& file, const std::string& text) {
            if (holds(dir / file, text + "\n")) return;
            state.write_file(dir / file, text + "\n");
        };
        put("reset", std::to_string(int(device.state)));
        put("core_count", std::to_string(spec.chip.cores_per_device));
        std::string connected;
        if (device.index < spec.instance.connected_to.size())
            for (uint32_t peer : spec.instance.connected_to[device.index])
                connected += (connected.empty() ? "" : ", ") + std::to_string(peer);
        put("connected_devices", connected);
        put("info/serial_number", fmt::format("{:016x}", device.serial_number));
        put("info/architecture/arch_type", spec.chip.core.version);
        put("info/architecture/instance_type", instance_family(spec.instance.name));
        put("info/architecture/device_name", spec.chip.product);
        uint64_t corrected = 0, uncorrected = 0;
        for (uint32_t word : device.memory_ecc) {
            corrected += word >> 16;
            uncorrected += word & 0xffff;
        }
        put("stats/hardware/mem_ecc_corrected", std::to_string(corrected));
        put("stats/hardware/mem_ecc_uncorrected", std::to_string(uncorrected));
        put("stats/hardware/sram_ecc_uncorrected", std::to_string(device.sram_ecc));
        for (unsigned c = 0; c < device.cores.size(); ++c) {
            const CoreCounters& k = device.cores[c];
            const fs::path info = fs::path(fmt::format("neuron_core{}", c)) / "stats" / "other_info";
            put(info / "model_load_count", std::to_string(k.model_load_count));
            put(info / "reset_req_count", std::to_string(k.reset_req_count));
            put(info / "reset_fail_count", std::to_string(k.reset_fail_count));
            put(info / "inference_count", std::to_string(k.inference_count));
        }
        state.write_file(state.dev_dir() / fmt::format("neuron{}", device.index), "");
    }
}

void remove_sysfs(const HostState& state) {
    std::error_code ignored;
    fs::remove_all(state.sysfs_dir() / "class", ignored);
    for (const auto& entry : fs::directory_iterator(state.dev_dir(), ignored)) fs::remove(entry.path(), ignored);
}

}  // namespace nsim::driver
