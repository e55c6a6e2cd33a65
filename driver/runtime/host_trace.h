// The host's side of a traced execution, on tracks of their own in the same Chrome trace as the
// engines' slices (sim/core/trace_writer.h), process "host":
//   application        the model's load (nrt_load: validation, allocation, code and weights over PCIe)
//                      and the host-side embedding of a BERT model that takes embeddings
//   runtime            nrt_execute, and inside it the runtime's own work per call and the wait from
//                      the doorbell to the device's completion notification
//   PCIe to device     each input tensor's copy (its bytes in args)
//   PCIe from device   each output tensor's copy
// Times are simulated host time (the SystemC time the driver passes while it copies and polls), the
// same clock as the engines' slices.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/trace_writer.h"

namespace nsim::runtime {

enum class HostTrack { Application, Runtime, ToDevice, FromDevice };

class HostTrace {
public:
    explicit HostTrace(sim::core::TraceWriter* writer) : writer_(writer) {}
    explicit operator bool() const { return writer_ != nullptr; }
    sim::core::TraceWriter* writer() const { return writer_; }

    // The simulated host's time now, in picoseconds.
    static uint64_t now_ps();
    // A slice from `start_ps` to now (nothing when not tracing).
    void slice_until_now(HostTrack track, std::string_view name, uint64_t start_ps, const sim::core::JsonArgs& args = {}) const;
    void slice(HostTrack track, std::string_view name, uint64_t start_ps, uint64_t end_ps,
               const sim::core::JsonArgs& args = {}) const;

private:
    sim::core::TraceWriter* writer_;
};

}  // namespace nsim::runtime
