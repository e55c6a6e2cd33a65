#include "config/device_interface_reader.h"

#include <algorithm>

#include <fmt/format.h>

namespace nsim::config {
namespace {

constexpr uint32_t kRegisterBytes = 4;  // BAR0 registers are 32-bit words

uint32_t register_offset(const ConfigNode& node) {
    const uint32_t value = node.as_u32();
    if (value % kRegisterBytes != 0) node.fail("must be a multiple of 4 (registers are 32-bit words)");
    return value;
}

double seconds(const ConfigNode& node) { return node.as_quantity(Quantity::seconds); }

double positive_seconds(const ConfigNode& node) {
    const double value = seconds(node);
    if (value <= 0) node.fail("must be greater than zero");
    return value;
}

UdmaRegisterSpec read_udma(const ConfigNode& node) {
    node.check_keys({"base", "engine_stride", "s2m", "queues", "queue_stride", "ring_base_lo", "ring_base_hi",
                     "ring_length", "head", "tail_increment", "tail", "ring_alignment"});
    UdmaRegisterSpec udma;
    udma.base = node.at("base").as_unsigned();
    udma.engine_stride = node.at("engine_stride").as_unsigned();
    udma.s2m = node.at("s2m").as_unsigned();
    udma.queues = node.at("queues").as_unsigned();
    udma.queue_stride = node.at("queue_stride").as_unsigned();
    const ConfigNode stride = node.at("queue_stride");
    udma.ring_base_lo = register_offset(node.at("ring_base_lo"));
    udma.ring_base_hi = register_offset(node.at("ring_base_hi"));
    udma.ring_length = register_offset(node.at("ring_length"));
    udma.head = register_offset(node.at("head"));
    udma.tail_increment = register_offset(node.at("tail_increment"));
    udma.tail = register_offset(node.at("tail"));
    for (uint32_t offset : {udma.ring_base_lo, udma.ring_base_hi, udma.ring_length, udma.head,
                            udma.tail_increment, udma.tail})
        if (offset >= udma.queue_stride) stride.fail(fmt::format("must exceed every queue register offset ({:#x})", offset));
    const ConfigNode alignment = node.at("ring_alignment");
    udma.ring_alignment = alignment.as_u32();
    if (!is_power_of_two(udma.ring_alignment)) alignment.fail("must be a power of two");
    return udma;
}

NotificationRegisterSpec read_notific(const ConfigNode& node) {
    node.check_keys({"base", "core_stride", "queue_base_lo", "queue_base_hi", "queue_size", "doorbell", "entry_bytes"});
    NotificationRegisterSpec n;
    n.base = node.at("base").as_unsigned();
    const ConfigNode stride = node.at("core_stride");
    n.core_stride = stride.as_unsigned();
    n.queue_base_lo = register_offset(node.at("queue_base_lo"));
    n.queue_base_hi = register_offset(node.at("queue_base_hi"));
    n.queue_size = register_offset(node.at("queue_size"));
    n.doorbell = register_offset(node.at("doorbell"));
    for (uint32_t offset : {n.queue_base_lo, n.queue_base_hi, n.queue_size, n.doorbell})
        if (offset >= n.core_stride) stride.fail(fmt::format("must exceed every register offset of a core's block ({:#x})", offset));
    const ConfigNode entry = node.at("entry_bytes");
    n.entry_bytes = entry.as_positive_u32();
    if (n.entry_bytes < 8) entry.fail("must hold a 32-bit sequence number and a 32-bit status (8 bytes)");
    return n;
}

DescriptorFormatSpec read_descriptor(const ConfigNode& node) {
    node.check_keys({"bytes", "length_bits", "phase_shift", "phase_mask", "initial_phase", "first_flag", "last_flag"});
    DescriptorFormatSpec d;
    const ConfigNode bytes = node.at("bytes");
    d.bytes = bytes.as_positive_u32();
    if (d.bytes < 16) bytes.fail("must hold len_ctrl, meta and a 64-bit pointer (16 bytes)");
    const ConfigNode length_bits = node.at("length_bits");
    d.length_bits = length_bits.as_positive_u32();
    if (d.length_bits > 24) length_bits.fail("must be at most 24");
    d.phase_shift = node.at("phase_shift").as_u32();
    d.phase_mask = node.at("phase_mask").as_positive_u32();
    // len_ctrl is a 32-bit word: the phase field (phase_mask << phase_shift) must lie inside it,
    // above the length field.
    const uint64_t phase_field = uint64_t(d.phase_mask) << std::min<uint32_t>(d.phase_shift, 32);
    if (d.phase_shift >= 32 || phase_field > 0xFFFFFFFFull)
        node.at("phase_shift").fail(fmt::format("{} puts phase_mask {:#x} outside the 32-bit len_ctrl word",
                                                d.phase_shift, d.phase_mask));
    if (d.phase_shift < d.length_bits)
        node.at("phase_shift").fail(fmt::format("{} overlaps the {}-bit length field", d.phase_shift, d.length_bits));
    d.initial_phase = node.at("initial_phase").as_u32();
    if (d.initial_phase > d.phase_mask) node.at("initial_phase").fail("must fit in phase_mask");
    d.first_flag = node.at("first_flag").as_positive_u32();
    d.last_flag = node.at("last_flag").as_positive_u32();
    return d;
}

}  // namespace

RegisterMapSpec read_register_map(const ConfigNode& node, uint64_t register_bar_bytes, uint32_t cores, uint32_t dma_engines,
                                  uint32_t memory_channels) {
    node.check_keys({"misc_ram", "api_version", "device_id", "serial_number_lo", "serial_number_hi", "sram_ecc",
                     "memory_ecc", "reset_core_map", "reset", "request_hi", "request_lo", "response_hi",
                     "response_lo", "doorbell", "firmware_status", "udma", "notific", "descriptor", "pci_host_base"});
    RegisterMapSpec map;
    map.present = true;
    const ConfigNode misc = node.at("misc_ram");
    map.misc_ram = misc.as_unsigned();
    uint32_t highest = 0;
    auto offset = [&](const char* key) {
        const uint32_t value = register_offset(node.at(key));
        highest = std::max(highest, value);
        return value;
    };
    map.api_version = offset("api_version");
    map.device_id = offset("device_id");
    map.serial_number_lo = offset("serial_number_lo");
    map.serial_number_hi = offset("serial_number_hi");
    map.sram_ecc = offset("sram_ecc");
    map.memory_ecc = offset("memory_ecc");
    highest = std::max(highest, map.memory_ecc + kRegisterBytes * (memory_channels - 1));
    map.reset_core_map = offset("reset_core_map");
    map.reset = offset("reset");
    map.request_hi = offset("request_hi");
    map.request_lo = offset("request_lo");
    map.response_hi = offset("response_hi");
    map.response_lo = offset("response_lo");
    map.doorbell = offset("doorbell");
    map.firmware_status = offset("firmware_status");
    if (map.misc_ram + highest + kRegisterBytes > register_bar_bytes)
        misc.fail(fmt::format("MISC RAM words up to {:#x} do not fit in the {}-byte register BAR", highest,
                              register_bar_bytes));
    const ConfigNode udma_node = node.at("udma");
    map.udma = read_udma(udma_node);
    const uint64_t udma_end = map.udma.base + uint64_t(dma_engines) * map.udma.engine_stride;
    const uint64_t misc_end = map.misc_ram + highest + kRegisterBytes;
    if (udma_end > register_bar_bytes)
        udma_node.fail(fmt::format("{} engines do not fit in the {}-byte register BAR", dma_engines, register_bar_bytes));
    if (map.udma.base < misc_end && map.misc_ram < udma_end)
        udma_node.fail("the UDMA registers overlap MISC RAM");
    const ConfigNode notific_node = node.at("notific");
    map.notific = read_notific(notific_node);
    const uint64_t notific_end = map.notific.base + uint64_t(cores) * map.notific.core_stride;
    if (notific_end > register_bar_bytes)
        notific_node.fail(fmt::format("{} cores' blocks do not fit in the {}-byte register BAR", cores, register_bar_bytes));
    if ((map.notific.base < misc_end && map.misc_ram < notific_end) || (map.notific.base < udma_end && map.udma.base < notific_end))
        notific_node.fail("the notification blocks overlap MISC RAM or the UDMA registers");
    map.descriptor = read_descriptor(node.at("descriptor"));
    map.pci_host_base = node.at("pci_host_base").as_unsigned();
    return map;
}

FirmwareSpec read_firmware(const ConfigNode& node) {
    node.check_keys({"device_id_not_ready", "ecc_invalid", "ready_mask", "ready_when", "reset_device",
                     "reset_cores", "command_read", "command_post_metric", "error_success", "error_fail",
                     "error_unknown_command", "api_version", "boot_time_s", "reset_ack_time_s",
                     "device_reset_time_s", "core_reset_time_s", "mailbox_service_time_s"});
    FirmwareSpec fw;
    fw.present = true;
    fw.device_id_not_ready = node.at("device_id_not_ready").as_u32();
    fw.ecc_invalid = node.at("ecc_invalid").as_u32();
    fw.ready_mask = node.at("ready_mask").as_positive_u32();
    const ConfigNode when = node.at("ready_when");
    const std::string polarity = when.as_string();
    if (polarity != "set" && polarity != "clear") when.fail("expected 'set' or 'clear'");
    fw.ready_when_set = polarity == "set";
    fw.reset_device = node.at("reset_device").as_positive_u32();
    fw.reset_cores = node.at("reset_cores").as_positive_u32();
    if (fw.reset_cores == fw.reset_device) node.at("reset_cores").fail("must differ from reset_device");
    fw.command_read = node.at("command_read").as_positive_u32();
    fw.command_post_metric = node.at("command_post_metric").as_positive_u32();
    fw.error_success = node.at("error_success").as_u32();
    fw.error_fail = node.at("error_fail").as_u32();
    fw.error_unknown_command = node.at("error_unknown_command").as_u32();
    fw.api_version = node.at("api_version").as_u32();
    fw.boot_time_s = seconds(node.at("boot_time_s"));
    fw.reset_ack_time_s = seconds(node.at("reset_ack_time_s"));
    fw.device_reset_time_s = seconds(node.at("device_reset_time_s"));
    fw.core_reset_time_s = seconds(node.at("core_reset_time_s"));
    fw.mailbox_service_time_s = seconds(node.at("mailbox_service_time_s"));
    return fw;
}

DriverSpec read_driver(const ConfigNode& node) {
    node.check_keys({"version", "firmware_ready_polls", "firmware_ready_interval_s", "fwio_poll_interval_s",
                     "fwio_timeout_s", "fwio_retries", "reset_initial_delay_device_s", "reset_initial_delay_cores_s",
                     "reset_poll_interval_s", "reset_reissue_device_s", "reset_reissue_cores_s", "reset_max_wait_s",
                     "reset_completion_retries", "reset_completion_backoff_s", "reset_request_all", "h2t_queue",
                     "h2t_ring_descriptors", "dma_poll_interval_s", "dma_timeout_per_descriptor_s",
                     "dma_bounce_bytes", "completion_marker", "memory_carveout_bytes", "min_alloc_bytes",
                     "host_pool_bytes", "max_processes_per_device", "notification_queue_bytes", "exec_poll_interval_s",
                     "runtime_execute_overhead_s"});
    DriverSpec d;
    d.present = true;
    d.version = node.at("version").as_string();
    d.firmware_ready_polls = node.at("firmware_ready_polls").as_positive_u32();
    d.firmware_ready_interval_s = positive_seconds(node.at("firmware_ready_interval_s"));
    d.fwio_poll_interval_s = positive_seconds(node.at("fwio_poll_interval_s"));
    d.fwio_timeout_s = positive_seconds(node.at("fwio_timeout_s"));
    d.fwio_retries = node.at("fwio_retries").as_positive_u32();
    d.reset_initial_delay_device_s = seconds(node.at("reset_initial_delay_device_s"));
    d.reset_initial_delay_cores_s = seconds(node.at("reset_initial_delay_cores_s"));
    d.reset_poll_interval_s = positive_seconds(node.at("reset_poll_interval_s"));
    d.reset_reissue_device_s = positive_seconds(node.at("reset_reissue_device_s"));
    d.reset_reissue_cores_s = positive_seconds(node.at("reset_reissue_cores_s"));
    d.reset_max_wait_s = positive_seconds(node.at("reset_max_wait_s"));
    d.reset_completion_retries = node.at("reset_completion_retries").as_positive_u32();
    d.reset_completion_backoff_s = positive_seconds(node.at("reset_completion_backoff_s"));
    d.reset_request_all = node.at("reset_request_all").as_u32();
    d.h2t_queue = node.at("h2t_queue").as_u32();
    const ConfigNode ring = node.at("h2t_ring_descriptors");
    d.h2t_ring_descriptors = ring.as_positive_u32();
    if (!is_power_of_two(d.h2t_ring_descriptors)) ring.fail("must be a power of two (rings wrap by a size mask)");
    d.dma_poll_interval_s = positive_seconds(node.at("dma_poll_interval_s"));
    d.dma_timeout_per_descriptor_s = positive_seconds(node.at("dma_timeout_per_descriptor_s"));
    d.dma_bounce_bytes = node.at("dma_bounce_bytes").as_bytes();
    if (d.dma_bounce_bytes == 0) node.at("dma_bounce_bytes").fail("must be greater than zero");
    d.completion_marker = node.at("completion_marker").as_positive_u32();
    d.memory_carveout_bytes = node.at("memory_carveout_bytes").as_bytes();
    const ConfigNode min_alloc = node.at("min_alloc_bytes");
    d.min_alloc_bytes = min_alloc.as_bytes();
    if (!is_power_of_two(d.min_alloc_bytes)) min_alloc.fail("must be a power of two");
    d.host_pool_bytes = node.at("host_pool_bytes").as_bytes();
    if (d.host_pool_bytes == 0) node.at("host_pool_bytes").fail("must be greater than zero");
    d.max_processes_per_device = node.at("max_processes_per_device").as_positive_u32();
    const ConfigNode queue_bytes = node.at("notification_queue_bytes");
    d.notification_queue_bytes = queue_bytes.as_bytes();
    if (!is_power_of_two(d.notification_queue_bytes)) queue_bytes.fail("must be a power of two (driver.md 9)");
    d.exec_poll_interval_s = positive_seconds(node.at("exec_poll_interval_s"));
    if (node.has("runtime_execute_overhead_s")) d.runtime_execute_overhead_s = seconds(node.at("runtime_execute_overhead_s"));
    return d;
}

}  // namespace nsim::config
