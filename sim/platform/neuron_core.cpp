#include "platform/neuron_core.h"

namespace nsim::sim {

// On-chip memory timing belongs to the engines that stream through it (the engines issue), so the
// memories themselves add none here.
NeuronCore::NeuronCore(sc_core::sc_module_name name, const config::NeuronCoreSpec& spec, unsigned index)
    : sc_core::sc_module(name),
      spec_(spec),
      index_(index),
      sbuf_("sbuf", spec.sbuf.total_bytes(), 0, sc_core::SC_ZERO_TIME),
      psum_("psum", spec.psum.total_bytes(), 0, sc_core::SC_ZERO_TIME) {
    for (const config::EngineSpec& e : spec.engines)
        engines_.push_back(std::make_unique<Engine>(e.name.c_str(), e));
}

}  // namespace nsim::sim
