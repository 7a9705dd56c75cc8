// MPI sweeps (`mpirun -np N ktune sweep FILE --mpi`): rank 0 coordinates
// (searchers, database) through run_distributed_sweep over an MPI transport;
// ranks 1..N-1 evaluate. Every MPI call lives in mpi_sweep.cpp behind
// KTUNE_HAVE_MPI, so a build without MPI compiles and says so at run time.
#pragma once

#include <memory>
#include <vector>

#include "engine/distributed_evaluator.hpp"

namespace ktune {

/// True when this build has the MPI path (Open MPI found, KTUNE_WITH_MPI=ON).
bool mpi_built();

/// MPI_Init on construction, MPI_Finalize on destruction; one per process.
class MpiSession {
 public:
  /// Throws std::runtime_error ("built without MPI ...") in a build without MPI.
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

/// Rank 0's transport: worker w is rank w + 1. Its destructor tells every
/// worker rank to stop, so create it before anything that may throw.
/// Throws std::invalid_argument with fewer than 2 ranks.
std::unique_ptr<WorkerTransport> make_mpi_transport(const MpiSession& session);

/// A worker rank's loop: prepares the items rank 0 names (by SweepItem::index
/// into `items`, which every rank reads from the same sweep file), evaluates
/// what it is sent, until rank 0 says stop. GPU items run on GPU
/// (local worker rank % visible GPUs): the ranks of one host share its GPUs.
void mpi_serve(const MpiSession& session, const std::vector<SweepItem>& items);

}  // namespace ktune
