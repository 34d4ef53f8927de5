// The Communicator over MPI_COMM_WORLD. Every collective is non-blocking (MPI_I*)
// and polled against a deadline; past it the rank prints which collective timed out
// and calls MPI_Abort, which ends every rank (mpirun/srun report the exit), so a dead
// or stalled rank fails the run instead of hanging it.
#pragma once

#include <mpi.h>

#include "dataparallel/communicator.hpp"

namespace hdbench::dataparallel {

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(double timeout_s);
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  void allreduce_sum(std::span<float> values, std::string_view what) override;
  void allreduce_max(std::span<double> values, std::string_view what) override;
  void broadcast(std::span<std::byte> bytes, std::string_view what) override;
  std::vector<std::string> gather_to_root(const std::string& text, std::string_view what) override;
  std::string describe() const override;
  // This rank's index among the ranks on its node (MPI_COMM_TYPE_SHARED): which GPU of
  // the node the rank takes.
  int local_rank() const noexcept { return local_rank_; }
  // Prints "hdbench_mpi: <message>" and ends every rank with `code`.
  [[noreturn]] void abort(const std::string& message, int code) const;

 private:
  void wait(MPI_Request& request, std::string_view what) const;
  void check(int status, std::string_view what) const;

  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  double timeout_s_;
};

}  // namespace hdbench::dataparallel
