// What the firmware model and the emulated driver agree on about a chip, read from the optional
// `registers:`, `firmware:` and `driver:` sections of a chip in configs/chips/*.yaml: the BAR0
// register map (firmware mailbox in MISC RAM, UDMA queue registers, descriptor format), how the
// device-side firmware behaves (boot and reset times, register values), and the driver's policy
// (poll intervals, timeouts, retries, pool sizes). A chip without these sections can be simulated
// but not driven (`present` stays false).
#pragma once

#include <cstdint>
#include <string>

namespace nsim::config {

// Per-queue UDMA registers (one M2S block and one S2M block per queue) and where they sit in BAR0:
//   engine e, queue q, side s:  base + e * engine_stride + (s == S2M ? s2m : 0) + queues + q * queue_stride
struct UdmaRegisterSpec {
    uint64_t base = 0;
    uint64_t engine_stride = 0;
    uint64_t s2m = 0;                 // offset of the S2M (write side) register file in an engine's block
    uint64_t queues = 0;              // offset of queue 0's block inside a register file
    uint64_t queue_stride = 0;
    uint32_t ring_base_lo = 0;        // offsets inside a queue block
    uint32_t ring_base_hi = 0;
    uint32_t ring_length = 0;         // in descriptors
    uint32_t head = 0;                // the device's consume pointer (read-only for the driver)
    uint32_t tail_increment = 0;      // the doorbell: writing n makes n more descriptors valid
    uint32_t tail = 0;
    uint32_t ring_alignment = 0;      // bytes; ring start and end must be aligned to it
};

// Per-NeuronCore notification block (driver.md 9): the queue's place in host memory, and the doorbell
// that starts an execution. Core c's block is at base + c * core_stride.
struct NotificationRegisterSpec {
    uint64_t base = 0;
    uint64_t core_stride = 0;
    uint32_t queue_base_lo = 0;       // offsets inside a core's block
    uint32_t queue_base_hi = 0;
    uint32_t queue_size = 0;          // bytes; 0 halts the queue
    uint32_t doorbell = 0;            // writing a sequence number starts the core's loaded program
    uint32_t entry_bytes = 0;         // one notification: u32 sequence, u32 status, reserved
};

// The 16-byte descriptor: u32 len_ctrl, u32 meta (TX) / buf2 lo (RX), u64 buffer pointer.
struct DescriptorFormatSpec {
    uint32_t bytes = 0;
    uint32_t length_bits = 0;         // len_ctrl[length_bits-1:0] = length; the full 2^bits is encoded as 0
    uint32_t phase_shift = 0;         // len_ctrl[phase_shift + ...] = ring id / phase
    uint32_t phase_mask = 0;
    uint32_t initial_phase = 0;       // phase of the first lap of a ring; it increments on every wrap
    uint32_t first_flag = 0;
    uint32_t last_flag = 0;
    uint64_t max_transfer_bytes() const { return uint64_t(1) << length_bits; }
};

// BAR0: MISC RAM (the firmware's mailbox and status words) and the UDMA queues. MISC RAM offsets are
// relative to misc_ram.
struct RegisterMapSpec {
    bool present = false;
    uint64_t misc_ram = 0;
    uint32_t api_version = 0;
    uint32_t device_id = 0;
    uint32_t serial_number_lo = 0;
    uint32_t serial_number_hi = 0;
    uint32_t sram_ecc = 0;
    uint32_t memory_ecc = 0;          // one word per memory channel, consecutive
    uint32_t reset_core_map = 0;
    uint32_t reset = 0;
    uint32_t request_hi = 0;
    uint32_t request_lo = 0;
    uint32_t response_hi = 0;
    uint32_t response_lo = 0;
    uint32_t doorbell = 0;
    uint32_t firmware_status = 0;
    UdmaRegisterSpec udma;
    NotificationRegisterSpec notific;
    DescriptorFormatSpec descriptor;
    uint64_t pci_host_base = 0;       // device address at which device DMA sees host physical address 0
};

// The device-side firmware: its timings and the values it puts in registers.
struct FirmwareSpec {
    bool present = false;
    uint32_t device_id_not_ready = 0; // what the device-id word reads until firmware is up
    uint32_t ecc_invalid = 0;         // an ECC counter word that carries no count
    uint32_t ready_mask = 0;          // the ready bit of firmware_status
    bool ready_when_set = true;       // false: the bit reads "reset in progress" and ready is clear
    uint32_t reset_device = 0;        // reset-register values: whole device, cores in reset_core_map
    uint32_t reset_cores = 0;
    uint32_t command_read = 0;        // mailbox commands
    uint32_t command_post_metric = 0;
    uint32_t error_success = 0;       // mailbox response error codes
    uint32_t error_fail = 0;
    uint32_t error_unknown_command = 0;
    uint32_t api_version = 0;
    double boot_time_s = 0;           // power-on to device id published
    double reset_ack_time_s = 0;      // doorbell to the reset register cleared
    double device_reset_time_s = 0;   // ack to ready again, whole device
    double core_reset_time_s = 0;     // ack to ready again, some cores
    double mailbox_service_time_s = 0; // doorbell to response written
};

// The emulated driver's policy.
struct DriverSpec {
    bool present = false;
    std::string version;              // MODULE_VERSION
    uint32_t firmware_ready_polls = 0;
    double firmware_ready_interval_s = 0;
    double fwio_poll_interval_s = 0;
    double fwio_timeout_s = 0;
    uint32_t fwio_retries = 0;
    double reset_initial_delay_device_s = 0;
    double reset_initial_delay_cores_s = 0;
    double reset_poll_interval_s = 0;
    double reset_reissue_device_s = 0;
    double reset_reissue_cores_s = 0;
    double reset_max_wait_s = 0;
    uint32_t reset_completion_retries = 0;
    double reset_completion_backoff_s = 0; // the i-th retry sleeps i times this
    uint32_t reset_request_all = 0;   // request id of the driver's own full-device resets
    uint32_t h2t_queue = 0;           // queue of the core's last DMA engine the driver copies through
    uint32_t h2t_ring_descriptors = 0;
    double dma_poll_interval_s = 0;
    double dma_timeout_per_descriptor_s = 0;
    double runtime_execute_overhead_s = 0;  // the runtime's own host work per execution (optional, 0 = none)
    uint64_t dma_bounce_bytes = 0;    // host buffer user data is staged through
    uint32_t completion_marker = 0;
    uint64_t memory_carveout_bytes = 0; // top of each memory channel kept for firmware
    uint64_t min_alloc_bytes = 0;
    uint64_t host_pool_bytes = 0;     // host memory the driver reserves per device
    uint32_t max_processes_per_device = 0;
    uint64_t notification_queue_bytes = 0; // per NeuronCore, in host memory
    double exec_poll_interval_s = 0;  // the runtime's polls of its notification queue
};

}  // namespace nsim::config
