// The dataparallel family's flags: the models and global batch sizes of the
// data-parallel MLP step, how many steps each rank takes, the per-rank CPU threads,
// the deadline every collective has, the parameter tolerance, and the sizes and
// buckets of the NCCL all-reduce, which processors run the step, and the GPU step's
// gradient bucket size. Models are validated by the caller's `check_model`
// (the model parser is the mlp area's, which this area does not include).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/flags.hpp"

namespace hdbench {

struct DataParallelOptions {
  std::vector<std::string> models = {"784x32x10"};
  std::vector<int> batches = {256, 1024};  // global: split evenly over the ranks
  int steps = 20;                          // timed steps, after one untimed warm-up step
  int threads = 1;                         // CPU threads per rank
  double timeout_s = 60.0;                 // per collective
  double tolerance = 1e-4;                 // abs and rel, against one rank on the combined batch
  std::vector<std::size_t> nccl_bytes = {std::size_t{1} << 20, std::size_t{64} << 20};
  std::vector<int> nccl_buckets = {1, 4};
  // The GPU data-parallel step (one rank per GPU, NCCL): whether it runs, and the
  // gradient bucket size of its overlapped exchange (DDP's default bucket_cap_mb).
  bool cpu_step = true;
  bool gpu_step = true;
  std::size_t bucket_bytes = std::size_t{25} << 20;
};

void declare_dataparallel_flags(FlagParser& flags, DataParallelOptions& options, const OptionLimits& limits,
                                std::function<void(std::string_view flag, std::string_view model)> check_model);

}  // namespace hdbench
