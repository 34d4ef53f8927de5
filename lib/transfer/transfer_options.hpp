// The transfer area's options (families transfer, pinning, staged, host_memcpy):
// sizes, directions, NUMA placement, engines, the staged ring and the host memcpy threads.
#pragma once

#include <cstddef>
#include <vector>

#include "core/flags.hpp"
#include "transfer/transfer_axes.hpp"

namespace hdbench {

struct TransferOptions {
  std::vector<std::size_t> sizes;
  std::vector<Direction> directions = all_directions();
  // all_to_host / host_to_all sizes: --hdbench_sizes when given (and in full), else
  // the default preset's largest size only (they copy on every GPU, each alone too).
  std::vector<std::size_t> all_gpu_sizes;
  // --hdbench_numa: where one-way and all-GPU copies keep their host buffers.
  std::vector<NumaPlacement> numa = {NumaPlacement::near};
  std::vector<Engine> engines = all_engines();
  std::vector<std::size_t> staged_chunk_sizes;
  std::vector<int> staged_threads;
  int staged_slots = 4;
  std::vector<int> memcpy_threads;
};

// Sets the defaults (memcpy and staged threads: powers of two up to the core count,
// and the core count itself) and declares
// the flags. A size the user asked for that cannot fit in host memory is a usage error.
void declare_transfer_flags(FlagParser& flags, TransferOptions& options, const OptionLimits& limits);

}  // namespace hdbench
