#include "platform/dma_engine.h"

#include <algorithm>
#include <memory>

#include "platform/blocking_access.h"

namespace nsim::sim {

bool DmaEngine::access(tlm::tlm_command command, uint64_t address, uint8_t* data, uint64_t length,
                       sc_core::sc_time& delay) {
    return blocking_access(socket, command, address, data, uint32_t(length), delay);
}

// The engine moves data in bursts no larger than one descriptor can carry; each burst is read,
// then written, and the engine's own rate limits how fast bursts follow each other.
bool DmaEngine::copy(uint64_t source, uint64_t destination, uint64_t length, sc_core::sc_time& delay) {
    constexpr uint64_t kBurstBytes = uint64_t(1) << 16;  // simulator chunking, not a hardware limit
    // Not zeroed: each burst is read into it whole before it is written (the load moves the
    // weights through here, hundreds of MB).
    const std::unique_ptr<uint8_t[]> buffer(new uint8_t[std::min(length, kBurstBytes)]);
    uint64_t done = 0;
    while (done < length) {
        const uint64_t chunk = std::min(kBurstBytes, length - done);
        if (!access(tlm::TLM_READ_COMMAND, source + done, buffer.get(), chunk, delay)) return false;
        annotate_transfer(engine_, chunk, delay);
        if (!access(tlm::TLM_WRITE_COMMAND, destination + done, buffer.get(), chunk, delay)) return false;
        done += chunk;
    }
    return true;
}

}  // namespace nsim::sim
