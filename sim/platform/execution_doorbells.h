// The device side of starting an execution and reporting its end. Every NeuronCore has a block of
// BAR0 registers (chip.registers.notific): where its notification queue lies in host memory (base
// lo/hi, size; driver.md 9) and a doorbell. Writing a sequence number to the doorbell makes the
// core's sequencer run the program the runtime loaded for it (the launcher); when that has finished,
// in simulated time, the device writes a notification {sequence, status} into the queue over its host
// window. There are no interrupts: the host learns of the completion only by polling that memory.
//
// Why the sequencer is a launcher installed from outside: the engines that run a program
// (sim/core/engine_scheduler.h) need the program and its placement, which only the loader knows;
// what the device owns is when it starts (the doorbell) and how the end is reported (the queue).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "config/host_spec.h"
#include "platform/register_file.h"

namespace nsim::sim {

class ExecutionDoorbells : public sc_core::sc_module {
public:
    // Notification writes: bind to the device interconnect.
    tlm_utils::simple_initiator_socket<ExecutionDoorbells> notification_port;

    // The statuses a notification carries.
    static constexpr uint32_t kCompleted = 0;
    static constexpr uint32_t kNothingLoaded = 1;   // the doorbell rang on a core with no program
    static constexpr uint32_t kFailed = 2;          // the program stopped (deadlock, bad instruction...)

    // Runs the core's program to its end (advancing simulated time) and returns its status.
    using Launcher = std::function<uint32_t(uint32_t sequence)>;

    ExecutionDoorbells(sc_core::sc_module_name name, const config::ChipSpec& chip, RegisterFile& registers);

    // BAR0 offset of register `reg` (an offset inside a core's block) of core `core`.
    uint64_t register_offset(unsigned core, uint32_t reg) const;
    // What core `core` runs when its doorbell rings; an empty launcher unloads it.
    void set_launcher(unsigned core, Launcher launcher);

    // Doorbells answered and notifications written, per core (tests and statistics).
    uint64_t doorbells(unsigned core) const { return cores_.at(core).doorbells; }
    uint64_t notifications(unsigned core) const { return cores_.at(core).notifications; }

private:
    struct Core {
        Launcher launcher;
        uint64_t doorbells = 0;
        uint64_t notifications = 0;
    };
    void on_doorbell(unsigned core, uint32_t sequence);
    void notify(unsigned core, uint32_t sequence, uint32_t status);

    const config::NotificationRegisterSpec spec_;
    RegisterFile& registers_;
    std::vector<Core> cores_;
};

}  // namespace nsim::sim
