#include "platform/dma_engine.h"

#include <algorithm>
#include <memory>

#include "platform/blocking_access.h"

namespace nsim::sim {

bool DmaEngine::access(tlm::tlm_command command, uint64_t address, uint8_t* data, uint64_t length,
                       sc_core::sc_time& delay) {
    return blocking_access(socket, command, address, data, uint32_t(length), delay);
}

// The engine streams a burst: its read, the engine's own pass over the bytes (and the device's DMA
// fabric's) and its write run at once (the engines' DMAs do the same, sim/core/engine_run_dma.cpp),
// so the burst takes as long as its slowest leg, each leg queued behind earlier users of its
// resource. The next burst starts when this one has finished.
bool DmaEngine::copy(uint64_t source, uint64_t destination, uint64_t length, sc_core::sc_time& delay) {
    constexpr uint64_t kBurstBytes = uint64_t(1) << 16;  // simulator chunking, not a hardware limit
    // Not zeroed: each burst is read into it whole before it is written (the load moves the
    // weights through here, hundreds of MB).
    const std::unique_ptr<uint8_t[]> buffer(new uint8_t[std::min(length, kBurstBytes)]);
    uint64_t done = 0;
    while (done < length) {
        const uint64_t chunk = std::min(kBurstBytes, length - done);
        sc_core::sc_time read = delay, pass = delay, fabric = delay, write = delay;
        if (!access(tlm::TLM_READ_COMMAND, source + done, buffer.get(), chunk, read)) return false;
        annotate_transfer(engine_, chunk, pass);
        if (fabric_) annotate_transfer(*fabric_, chunk, fabric);
        if (!access(tlm::TLM_WRITE_COMMAND, destination + done, buffer.get(), chunk, write)) return false;
        delay = std::max({read, pass, fabric, write});
        done += chunk;
    }
    return true;
}

}  // namespace nsim::sim
