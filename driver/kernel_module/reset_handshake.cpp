#include "reset_handshake.h"

#include <algorithm>

#include <fmt/format.h>

#include "host_time.h"

namespace nsim::driver {
namespace {

enum class Phase { Issue, AwaitAck, AwaitReady, Done };

using sc_core::sc_time;

sc_time seconds(double s) { return sc_time(s, sc_core::SC_SEC); }

struct Worker {
    ResetRequest* request;
    Phase phase = Phase::Issue;
    sc_time next;             // simulated time of its next step
    sc_time started;
    sc_time issued;
    uint32_t ready_tries = 0;
};

}  // namespace

void run_resets(std::vector<ResetRequest>& requests, const config::ChipSpec& chip, const KernelLog& log) {
    const config::RegisterMapSpec& map = chip.registers;
    const config::FirmwareSpec& fw = chip.firmware;
    const config::DriverSpec& drv = chip.driver;
    std::vector<Worker> workers;
    for (ResetRequest& request : requests) workers.push_back({&request, Phase::Issue, host_time::now()});

    auto kind = [](const ResetRequest& r) { return r.whole_device ? "device" : "TPB"; };
    auto issue = [&](Worker& w) {
        const ResetRequest& r = *w.request;
        if (!r.whole_device) r.bar0->write32(map.misc_ram + map.reset_core_map, r.core_map);
        r.bar0->write32(map.misc_ram + map.reset, r.whole_device ? fw.reset_device : fw.reset_cores);
        r.bar0->write32(map.misc_ram + map.doorbell, 1);
        w.issued = host_time::now();
        ++w.request->issues;
    };
    auto finish = [&](Worker& w, bool ok, const std::string& why) {
        ResetRequest& r = *w.request;
        w.phase = Phase::Done;
        r.ok = ok;
        r.seconds = (host_time::now() - w.started).to_seconds();
        if (ok) {
            log.print(fmt::format("nd{}: reset request {} completed", r.device, r.request_id));
            return;
        }
        r.message = fmt::format("nd{}: reset request {} was initiated, but failed to complete ({})", r.device,
                                r.request_id, why);
        log.print(r.message);
        log.print(fmt::format("nd{}: reset request {} failed", r.device, r.request_id));
    };

    for (;;) {
        bool pending = false;
        sc_time next = sc_core::SC_ZERO_TIME;
        for (const Worker& w : workers)
            if (w.phase != Phase::Done && (!pending || w.next < next)) {
                next = w.next;
                pending = true;
            }
        if (!pending) break;
        if (next > host_time::now()) host_time::advance(next - host_time::now());
        const sc_time now = host_time::now();
        for (Worker& w : workers) {
            if (w.phase == Phase::Done || w.next > now) continue;
            ResetRequest& r = *w.request;
            switch (w.phase) {
                case Phase::Issue:
                    log.print(fmt::format("nd{}: initiating {} reset request {}", r.device, kind(r), r.request_id));
                    w.started = now;
                    issue(w);
                    w.phase = Phase::AwaitAck;
                    w.next = now + seconds(r.whole_device ? drv.reset_initial_delay_device_s : drv.reset_initial_delay_cores_s);
                    break;
                case Phase::AwaitAck: {
                    if (r.bar0->read32(map.misc_ram + map.reset) == 0) {
                        w.phase = Phase::AwaitReady;
                        w.next = host_time::now();
                        break;
                    }
                    const sc_time t = host_time::now();
                    if (t - w.started >= seconds(drv.reset_max_wait_s)) {
                        finish(w, false, fmt::format("firmware did not acknowledge within {:g} s, {} attempts",
                                                     drv.reset_max_wait_s, r.issues));
                        break;
                    }
                    if (t - w.issued >= seconds(r.whole_device ? drv.reset_reissue_device_s : drv.reset_reissue_cores_s))
                        issue(w);
                    w.next = t + seconds(drv.reset_poll_interval_s);
                    break;
                }
                case Phase::AwaitReady: {
                    const bool bit = (r.bar0->read32(map.misc_ram + map.firmware_status) & fw.ready_mask) != 0;
                    if (bit == fw.ready_when_set) {
                        finish(w, true, "");
                        break;
                    }
                    if (++w.ready_tries >= drv.reset_completion_retries) {
                        finish(w, false, fmt::format("device not ready after {} tries", w.ready_tries));
                        break;
                    }
                    w.next = host_time::now() + seconds(drv.reset_completion_backoff_s * w.ready_tries);
                    break;
                }
                case Phase::Done: break;
            }
        }
    }
}

}  // namespace nsim::driver
