// The processes a sweep's points are spread over: the MPI ranks when neuron-sim was started under
// mpirun (or another MPI launcher), else this process alone. Rank 0 reads the sweep file and the CSV
// and writes the CSV; every rank runs its share of the points and hands its rows to rank 0. Only
// sweep_ranks_mpi.cpp includes mpi.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace nsim::tools {

struct FinishedRow {
    uint32_t point = 0;   // index into the points to run
    std::string text;     // the row as the rank made it
};

class SweepRanks {
public:
    virtual ~SweepRanks() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Rank 0's `text` on every rank; nullopt everywhere when rank 0 has none (it failed and says why).
    virtual std::optional<std::string> share_from_first(const std::optional<std::string>& text) = 0;
    // Another rank's finished row for rank 0.
    virtual void send_row(const FinishedRow& row) = 0;
    // Rank 0: a row another rank finished; with `wait` false, nullopt when none has arrived yet.
    virtual std::optional<FinishedRow> receive_row(bool wait) = 0;
};

// MPI's ranks (MPI initialised here, finalised when the object goes) when the environment says an
// MPI launcher started this process; else one rank. UserError when MPI cannot start.
std::unique_ptr<SweepRanks> open_sweep_ranks();

}  // namespace nsim::tools
