// One compute engine of a NeuronCore (tensor, vector, scalar, gpsimd, sync). At elaboration it
// carries its identity and clock; the engines issue gives it an instruction queue.
#pragma once

#include <systemc>

#include "config/host_spec.h"

namespace nsim::sim {

class Engine : public sc_core::sc_module {
public:
    Engine(sc_core::sc_module_name name, const config::EngineSpec& spec)
        : sc_core::sc_module(name), spec_(spec) {}

    const config::EngineSpec& spec() const { return spec_; }
    sc_core::sc_time cycle() const { return sc_core::sc_time(1.0 / spec_.clock_hz, sc_core::SC_SEC); }

private:
    config::EngineSpec spec_;
};

}  // namespace nsim::sim
