#include "process_session.h"

namespace nsim::driver {

ProcessSession::ProcessSession(const HostState& state)
    : state_(state), me_(ProcessIdentity::self()), record_(me_.record()) {}

ProcessSession::~ProcessSession() {
    try {
        state_.remove_process(me_.pid);
        state_.remove_activity(me_.pid);
    } catch (...) {
    }
}

void ProcessSession::update(const std::function<void(ProcessRecord&)>& change) {
    change(record_);
    const bool holds_something = !record_.open_devices.empty() || !record_.cores.empty() || !record_.models.empty();
    if (holds_something) state_.write_process(record_);
    else state_.remove_process(me_.pid);
}

}  // namespace nsim::driver
