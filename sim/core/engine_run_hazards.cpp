// Two hazards of compute instructions besides semaphores (configs/chips/nc-v2.yaml, "Engine cost
// model"): an instruction that reads what the previous instruction of its engine wrote waits until
// those results are visible (the engine's result latency), and engines that reach SBUF or PSUM
// through one shared port (NKI2: on NeuronCore-v2 VectorE and GpSimdE cannot access SBUF in
// parallel, VectorE and ScalarE cannot access PSUM in parallel) take turns on it, each instruction
// holding the port for its whole occupancy.
#include <algorithm>

#include "core/engine_roles.h"
#include "core/engine_run.h"
#include "core/on_chip_access.h"

namespace nsim::sim::core {
namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

void EngineRun::find_shared_ports(Queue& q) const {
    const config::NeuronCoreSpec& spec = cost.core();
    const std::string name = config_engine_name(q.engine);
    q.shares_sbuf_port = listed(spec.sbuf_shared_port_engines, name);
    q.shares_psum_port = listed(spec.psum_shared_port_engines, name);
}

uint64_t EngineRun::hazard_free_at(const Queue& q, const isa::Instruction& inst, uint64_t now) const {
    uint64_t ready = now;
    if (q.last_issued && q.last_visible > now && reads_what_was_written(inst, *q.last_issued)) ready = q.last_visible;
    const Core& core = cores[q.core];
    if (q.shares_sbuf_port && touches(inst, isa::MemorySpace::Sbuf)) ready = std::max(ready, core.sbuf_port_busy_until);
    if (q.shares_psum_port && touches(inst, isa::MemorySpace::Psum)) ready = std::max(ready, core.psum_port_busy_until);
    return ready;
}

void EngineRun::note_issue(Queue& q, const isa::Instruction& inst, uint64_t free, uint64_t visible) {
    if (isa::info(inst.opcode).cost == isa::CostClass::Control) return;  // touches no memory, hides nothing
    q.last_issued = &inst;
    q.last_visible = visible;
    Core& core = cores[q.core];
    if (q.shares_sbuf_port && touches(inst, isa::MemorySpace::Sbuf)) core.sbuf_port_busy_until = free;
    if (q.shares_psum_port && touches(inst, isa::MemorySpace::Psum)) core.psum_port_busy_until = free;
}

}  // namespace nsim::sim::core
