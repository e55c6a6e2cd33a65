#include "platform/dma_engine.h"

#include <algorithm>

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
    std::vector<uint8_t> buffer(std::min(length, kBurstBytes));
    uint64_t done = 0;
    while (done < length) {
        const uint64_t chunk = std::min(kBurstBytes, length - done);
        if (!access(tlm::TLM_READ_COMMAND, source + done, buffer.data(), chunk, delay)) return false;
        annotate_transfer(engine_, chunk, delay);
        if (!access(tlm::TLM_WRITE_COMMAND, destination + done, buffer.data(), chunk, delay)) return false;
        done += chunk;
    }
    return true;
}

}  // namespace nsim::sim
