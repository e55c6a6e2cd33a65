#include "platform/execution_doorbells.h"

#include <stdexcept>

#include <fmt/format.h>

#include "platform/blocking_access.h"

namespace nsim::sim {

ExecutionDoorbells::ExecutionDoorbells(sc_core::sc_module_name name, const config::ChipSpec& chip, RegisterFile& registers)
    : sc_core::sc_module(name), notification_port("notification_port"), spec_(chip.registers.notific),
      registers_(registers), cores_(chip.cores_per_device) {
    for (unsigned core = 0; core < cores_.size(); ++core)
        registers_.on_write(register_offset(core, spec_.doorbell), [this, core](uint32_t value) { on_doorbell(core, value); });
}

uint64_t ExecutionDoorbells::register_offset(unsigned core, uint32_t reg) const {
    return spec_.base + uint64_t(core) * spec_.core_stride + reg;
}

void ExecutionDoorbells::set_launcher(unsigned core, Launcher launcher) {
    if (core >= cores_.size()) throw std::out_of_range(fmt::format("no NeuronCore {} on this device", core));
    cores_[core].launcher = std::move(launcher);
}

// A BAR write reaches here from host software (between sc_start calls), so the sequencer may run the
// simulation forward until the program is over before the notification is written.
void ExecutionDoorbells::on_doorbell(unsigned core, uint32_t sequence) {
    Core& c = cores_[core];
    ++c.doorbells;
    const uint32_t status = c.launcher ? c.launcher(sequence) : kNothingLoaded;
    notify(core, sequence, status);
}

void ExecutionDoorbells::notify(unsigned core, uint32_t sequence, uint32_t status) {
    const uint64_t base = (uint64_t(registers_.peek(register_offset(core, spec_.queue_base_hi))) << 32) |
                          registers_.peek(register_offset(core, spec_.queue_base_lo));
    const uint32_t size = registers_.peek(register_offset(core, spec_.queue_size));
    const uint32_t entries = size / spec_.entry_bytes;
    if (base == 0 || entries == 0) return;   // a halted queue: the notification is lost
    Core& c = cores_[core];
    std::vector<uint8_t> entry(spec_.entry_bytes, 0);
    std::copy_n(reinterpret_cast<const uint8_t*>(&sequence), 4, entry.begin());
    std::copy_n(reinterpret_cast<const uint8_t*>(&status), 4, entry.begin() + 4);
    const uint64_t address = base + (c.notifications % entries) * spec_.entry_bytes;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    if (blocking_access(notification_port, tlm::TLM_WRITE_COMMAND, address, entry.data(), uint32_t(entry.size()), delay))
        ++c.notifications;
}

}  // namespace nsim::sim
