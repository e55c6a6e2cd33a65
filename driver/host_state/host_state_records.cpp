#include "host_state_records.h"

#include <stdexcept>

namespace nsim::driver {

const char* name_of(DeviceState state) {
    switch (state) {
        case DeviceState::Reset: return "RESET";
        case DeviceState::Ready: return "READY";
        case DeviceState::Invalid: return "INVALID";
    }
    return "INVALID";
}

void to_json(nlohmann::json& j, DeviceState state) { j = name_of(state); }

void from_json(const nlohmann::json& j, DeviceState& state) {
    const std::string name = j.get<std::string>();
    for (DeviceState s : {DeviceState::Reset, DeviceState::Ready, DeviceState::Invalid})
        if (name == name_of(s)) {
            state = s;
            return;
        }
    throw std::invalid_argument("unknown device state '" + name + "'");
}

uint64_t ProcessRecord::device_memory_on(unsigned device) const {
    uint64_t total = 0;
    for (const auto& [channel, bytes] : device_memory_bytes)
        if (channel.device == device) total += bytes;
    return total;
}

void to_json(nlohmann::json& j, const ProcessRecord& v) {
    nlohmann::json memory = nlohmann::json::object();
    for (const auto& [channel, bytes] : v.device_memory_bytes)
        memory[std::to_string(channel.device) + "." + std::to_string(channel.channel)] = bytes;
    j = {{"pid", v.pid}, {"start_time", v.start_time}, {"command", v.command}, {"open_devices", v.open_devices},
         {"cores", v.cores}, {"models", v.models}, {"device_memory_bytes", memory},
         {"host_memory_bytes", v.host_memory_bytes}};
}
void from_json(const nlohmann::json& j, ProcessRecord& v) {
    j.at("pid").get_to(v.pid);
    j.at("start_time").get_to(v.start_time);
    j.at("command").get_to(v.command);
    j.at("open_devices").get_to(v.open_devices);
    j.at("cores").get_to(v.cores);
    j.at("models").get_to(v.models);
    v.device_memory_bytes.clear();
    for (const auto& [key, bytes] : j.at("device_memory_bytes").items()) {
        const size_t dot = key.find('.');
        const MemoryChannelId channel{unsigned(std::stoul(key.substr(0, dot))),
                                      dot == std::string::npos ? 0u : unsigned(std::stoul(key.substr(dot + 1)))};
        v.device_memory_bytes[channel] = bytes.get<uint64_t>();
    }
    j.at("host_memory_bytes").get_to(v.host_memory_bytes);
}

}  // namespace nsim::driver
