// Whether an MPI launcher (mpirun, mpiexec, srun with PMIx) started this process: what Open MPI's,
// MPICH's and PMIx launchers put in each process's environment. Without one, a program does not
// initialise MPI and runs as its only process. No mpi.h here.
#pragma once

#include <cstdlib>

namespace nsim::library {

inline bool started_by_mpi_launcher() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (std::getenv(name)) return true;
    return false;
}

}  // namespace nsim::library
