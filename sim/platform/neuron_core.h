// A NeuronCore: its engines and its two partitioned on-chip memories, SBUF (state buffer) and
// PSUM (partial-sum buffer), each a TLM target reachable through the device's interconnect.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "config/host_spec.h"
#include "platform/engine.h"
#include "platform/rounding_stream.h"
#include "platform/timed_memory.h"

namespace nsim::sim {

class NeuronCore : public sc_core::sc_module {
public:
    NeuronCore(sc_core::sc_module_name name, const config::NeuronCoreSpec& spec, unsigned index);

    unsigned index() const { return index_; }
    const config::NeuronCoreSpec& spec() const { return spec_; }
    const std::vector<std::unique_ptr<Engine>>& engines() const { return engines_; }
    TimedMemory& sbuf() { return sbuf_; }
    TimedMemory& psum() { return psum_; }
    const TimedMemory& sbuf() const { return sbuf_; }
    const TimedMemory& psum() const { return psum_; }
    // Its stochastic-rounding generator's position, kept across executions (rounding_stream.h).
    RoundingStream& rounding_stream() { return rounding_stream_; }

private:
    config::NeuronCoreSpec spec_;
    unsigned index_;
    std::vector<std::unique_ptr<Engine>> engines_;
    TimedMemory sbuf_;
    TimedMemory psum_;
    RoundingStream rounding_stream_;
};

}  // namespace nsim::sim
