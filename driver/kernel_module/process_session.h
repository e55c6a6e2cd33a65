// This process's entry in the host state (processes/<pid>.json): which devices it has open, which
// cores it holds, its models and memory. Written on every change; removed when the session ends, and
// ignored by everyone once the process is gone, so a process that dies leaves no stale claim.
#pragma once

#include <functional>

#include "host_state.h"
#include "process_identity.h"

namespace nsim::driver {

class ProcessSession {
public:
    explicit ProcessSession(const HostState& state);
    ~ProcessSession();
    ProcessSession(const ProcessSession&) = delete;
    ProcessSession& operator=(const ProcessSession&) = delete;

    const ProcessRecord& record() const { return record_; }
    const ProcessIdentity& identity() const { return me_; }
    // Applies `change` and publishes the record (or removes it when it holds nothing).
    void update(const std::function<void(ProcessRecord&)>& change);

private:
    const HostState& state_;
    ProcessIdentity me_;
    ProcessRecord record_;
};

}  // namespace nsim::driver
