// What a data-parallel step needs from its ranks, whoever launched them: the rank and
// the count, a gradient all-reduce, a broadcast and a gather to rank 0. Every
// collective has a deadline: a rank that died or stalled fails the run with a message
// naming the collective, instead of hanging it (the MPI communicator aborts the job).
// The MPI implementation lives with the MPI binary (bench/mpi/); the core of the suite
// links no MPI. SelfCommunicator is the one-rank case, for the plain binary and tests.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench::dataparallel {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  // In place: every rank's `values` become the element-wise sum over the ranks.
  virtual void allreduce_sum(std::span<float> values, std::string_view what) = 0;
  // Element-wise maximum over the ranks (doubles: checks and figures).
  virtual void allreduce_max(std::span<double> values, std::string_view what) = 0;
  // Rank 0's bytes to every rank (sizes must agree).
  virtual void broadcast(std::span<std::byte> bytes, std::string_view what) = 0;
  // Every rank's text, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather_to_root(const std::string& text, std::string_view what) = 0;
  // What the communicator is ("mpi (Open MPI v4.1.4)", "self").
  virtual std::string describe() const = 0;
  bool is_root() const noexcept { return rank() == 0; }
};

// One rank: collectives are copies.
class SelfCommunicator final : public Communicator {
 public:
  int rank() const noexcept override { return 0; }
  int size() const noexcept override { return 1; }
  void allreduce_sum(std::span<float>, std::string_view) override {}
  void allreduce_max(std::span<double>, std::string_view) override {}
  void broadcast(std::span<std::byte>, std::string_view) override {}
  std::vector<std::string> gather_to_root(const std::string& text, std::string_view) override { return {text}; }
  std::string describe() const override { return "self"; }
};

// The message a collective that ran out of time fails with.
std::string timeout_message(int rank, int size, std::string_view what, double timeout_s);

// Which launcher started this process, from the environment it sets: "openmpi"
// (OMPI_COMM_WORLD_SIZE), "pmix" (PMIX_RANK), "pmi" (PMI_SIZE), "slurm" (SLURM_STEP_ID
// with SLURM_NTASKS), or "" when none. `getenv` is injectable for tests.
std::string detect_launcher(const char* (*getenv)(const char*) = nullptr);

}  // namespace hdbench::dataparallel
