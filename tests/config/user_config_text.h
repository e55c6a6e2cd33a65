// A complete, valid user file: one chip generation with one chip and an instance using it. The
// bad-file tests each break one thing in it.
#pragma once

namespace nsim::config::testing {

inline constexpr const char* kUserConfig = R"(neuron_core:
  name: TestCore
  version: t1
  engines:
    tensor: {clock_hz: 1GHz, elements_per_cycle: 128, min_instruction_cycles: 64}
    vector: {clock_hz: 800MHz, elements_per_cycle: 128}
  tensor:
    pe_rows: 128
    pe_cols: 128
    max_contraction: 128
    max_stationary_free: 128
    max_moving_free: 512
    peak_flops: {bf16: 32TFLOPS, int8: 64TOPS}
  sbuf: {partitions: 128, bytes_per_partition: 64KiB}
  psum: {partitions: 128, bytes_per_partition: 16KiB, banks: 8}
  semaphores: 64
  dma_engines: 4
  dma_queues_per_engine: 16
  dma_engine_bytes_per_s: 10GB/s
  dma_transfer_overhead_s: 1us
chips:
  testchip:
    product: TestChip
    cores_per_device: 2
    pci:
      vendor_id: 0x1d0f
      device_id: 0x7f00
      revision: 0
      bars:
        - {index: 0, size: 1MiB, role: registers}
        - {index: 4, size: 8GiB, role: device-memory}
    pcie: {generation: 4, lanes: 8, bytes_per_s: 13GB/s, latency_s: 500ns}
    memory:
      type: DDR5
      channels: 2
      channel_bytes: 4GiB
      channel_stride_bytes: 64GiB
      bytes_per_s: 100GB/s
      latency_s: 90ns
    link: {version: TestLink, ports: 2, bytes_per_s: 50GB/s, latency_s: 1us}
instances:
  test.4xlarge:
    chip: testchip
    devices: 4
    vcpus: 16
    host_memory_bytes: 64GiB
    pci_bdfs: ["00:1c.0", "00:1d.0", "00:1e.0", "0000:00:1F.0"]
    connected_to: [[1], [0, 2], [1, 3], [2]]
)";

}  // namespace nsim::config::testing
