// A model server under closed-loop load, in simulated time: `copies` model copies (one per
// NeuronCore), each taking the requests waiting in one shared FIFO queue in batches of up to the
// compiled batch size (a short batch is padded with dummy requests, which are not counted), as
// TorchServe with batching on the Neuron runtime does. Every client sends its next request as soon as
// the previous one returns. How long one execution takes comes from the caller (a simulated run of
// the program), so this file is only the queueing: no hardware numbers live here.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace nsim::serving {

struct ServingSetup {
    uint32_t copies = 1;               // model copies serving in parallel
    uint32_t max_batch = 1;            // requests one execution takes (the compiled batch)
    uint32_t clients = 1;              // closed-loop clients
    uint32_t requests_per_client = 1;
    // A free copy with fewer than max_batch requests waiting waits until the oldest has waited this
    // long (or the batch fills) before it runs a short batch. 0: run whatever is waiting at once.
    double max_batch_delay_s = 0;
};

// Seconds from taking `real_requests` (1..max_batch) off the queue to their results being back.
using ExecutionTime = std::function<double(uint32_t real_requests)>;

struct ServingResult {
    uint64_t requests = 0;             // real requests served
    uint64_t executions = 0;
    uint64_t padded_slots = 0;         // dummy requests that filled short batches
    double makespan_s = 0;             // first request sent to last result back
    double inferences_per_s = 0;       // real requests / makespan
    std::vector<double> latencies_s;   // per request, send to result, in completion order
    double latency_percentile_s(double percentile) const;  // nearest-rank, percentile in (0, 100]
    double mean_batch() const { return executions ? double(requests) / double(executions) : 0; }
};

// Throws std::invalid_argument on a setup with a zero count or a negative delay.
ServingResult simulate_serving(const ServingSetup& setup, const ExecutionTime& execution_time);

}  // namespace nsim::serving
