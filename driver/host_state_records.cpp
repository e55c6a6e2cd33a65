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

namespace {

DeviceState state_from_name(const std::string& name) {
    for (DeviceState s : {DeviceState::Reset, DeviceState::Ready, DeviceState::Invalid})
        if (name == name_of(s)) return s;
    throw std::invalid_argument("unknown device state '" + name + "'");
}

}  // namespace

void to_json(nlohmann::json& j, const CoreCounters& v) {
    j = {{"reset_req_count", v.reset_req_count}, {"reset_fail_count", v.reset_fail_count},
         {"model_load_count", v.model_load_count}, {"inference_count", v.inference_count}};
}
void from_json(const nlohmann::json& j, CoreCounters& v) {
    j.at("reset_req_count").get_to(v.reset_req_count);
    j.at("reset_fail_count").get_to(v.reset_fail_count);
    j.at("model_load_count").get_to(v.model_load_count);
    j.at("inference_count").get_to(v.inference_count);
}

void to_json(nlohmann::json& j, const DeviceRecord& v) {
    j = {{"index", v.index}, {"bdf", v.bdf}, {"vendor_id", v.vendor_id}, {"device_id", v.device_id},
         {"state", name_of(v.state)}, {"reason", v.reason}, {"serial_number", v.serial_number},
         {"reset_count", v.reset_count}, {"reset_fail_count", v.reset_fail_count}, {"cores", v.cores},
         {"memory_ecc", v.memory_ecc}, {"sram_ecc", v.sram_ecc}};
}
void from_json(const nlohmann::json& j, DeviceRecord& v) {
    j.at("index").get_to(v.index);
    j.at("bdf").get_to(v.bdf);
    j.at("vendor_id").get_to(v.vendor_id);
    j.at("device_id").get_to(v.device_id);
    v.state = state_from_name(j.at("state").get<std::string>());
    j.at("reason").get_to(v.reason);
    j.at("serial_number").get_to(v.serial_number);
    j.at("reset_count").get_to(v.reset_count);
    j.at("reset_fail_count").get_to(v.reset_fail_count);
    j.at("cores").get_to(v.cores);
    j.at("memory_ecc").get_to(v.memory_ecc);
    j.at("sram_ecc").get_to(v.sram_ecc);
}

void to_json(nlohmann::json& j, const MachineRecord& v) {
    j = {{"instance", v.instance}, {"chip", v.chip}, {"driver_loaded", v.driver_loaded},
         {"driver_version", v.driver_version}, {"load_count", v.load_count}, {"devices", v.devices}};
}
void from_json(const nlohmann::json& j, MachineRecord& v) {
    j.at("instance").get_to(v.instance);
    j.at("chip").get_to(v.chip);
    j.at("driver_loaded").get_to(v.driver_loaded);
    j.at("driver_version").get_to(v.driver_version);
    j.at("load_count").get_to(v.load_count);
    j.at("devices").get_to(v.devices);
}

void to_json(nlohmann::json& j, const CoreId& v) { j = {{"device", v.device}, {"core", v.core}}; }
void from_json(const nlohmann::json& j, CoreId& v) {
    j.at("device").get_to(v.device);
    j.at("core").get_to(v.core);
}

void to_json(nlohmann::json& j, const ModelRecord& v) {
    j = {{"id", v.id}, {"name", v.name}, {"cores", v.cores}, {"load_time_s", v.load_time_s},
         {"device_bytes", v.device_bytes}};
}
void from_json(const nlohmann::json& j, ModelRecord& v) {
    j.at("id").get_to(v.id);
    j.at("name").get_to(v.name);
    j.at("cores").get_to(v.cores);
    j.at("load_time_s").get_to(v.load_time_s);
    j.at("device_bytes").get_to(v.device_bytes);
}

void to_json(nlohmann::json& j, const ProcessRecord& v) {
    nlohmann::json memory = nlohmann::json::object();
    for (const auto& [device, bytes] : v.device_memory_bytes) memory[std::to_string(device)] = bytes;
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
    for (const auto& [device, bytes] : j.at("device_memory_bytes").items())
        v.device_memory_bytes[unsigned(std::stoul(device))] = bytes.get<uint64_t>();
    j.at("host_memory_bytes").get_to(v.host_memory_bytes);
}

void to_json(nlohmann::json& j, const ActivitySample& v) {
    j = {{"sim_end_s", v.sim_end_s}, {"interval_s", v.interval_s}, {"busy_s", v.busy_s}};
}
void from_json(const nlohmann::json& j, ActivitySample& v) {
    j.at("sim_end_s").get_to(v.sim_end_s);
    j.at("interval_s").get_to(v.interval_s);
    j.at("busy_s").get_to(v.busy_s);
}

void to_json(nlohmann::json& j, const CoreActivity& v) { j = {{"core", v.core}, {"samples", v.samples}}; }
void from_json(const nlohmann::json& j, CoreActivity& v) {
    j.at("core").get_to(v.core);
    j.at("samples").get_to(v.samples);
}

void to_json(nlohmann::json& j, const ActivityRecord& v) {
    j = {{"pid", v.pid}, {"updated_wall_s", v.updated_wall_s}, {"cores", v.cores}};
}
void from_json(const nlohmann::json& j, ActivityRecord& v) {
    j.at("pid").get_to(v.pid);
    j.at("updated_wall_s").get_to(v.updated_wall_s);
    j.at("cores").get_to(v.cores);
}

}  // namespace nsim::driver
