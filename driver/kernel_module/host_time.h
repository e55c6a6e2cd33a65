// Host software (driver, runtime) runs outside SystemC processes, between sc_start calls. It passes
// simulated time by running the simulation forward, so the devices' agents (firmware, DMA) act while
// the host "sleeps" or polls. Seconds of driver polling therefore cost little host time.
#pragma once

#include <systemc>

namespace nsim::driver::host_time {

inline sc_core::sc_time now() { return sc_core::sc_time_stamp(); }
inline double now_s() { return sc_core::sc_time_stamp().to_seconds(); }

inline void advance(const sc_core::sc_time& duration) {
    if (duration > sc_core::SC_ZERO_TIME) sc_core::sc_start(duration);
}
inline void advance_s(double seconds) { advance(sc_core::sc_time(seconds, sc_core::SC_SEC)); }

}  // namespace nsim::driver::host_time
