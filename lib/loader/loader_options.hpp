// The loader family's grid: batch sizes, worker threads, prefetch depth, the
// synthetic per-sample cost, shuffling, pinning, how workers build a batch,
// augmentation and the consumer.
#pragma once

#include <vector>

#include "core/flags.hpp"
#include "loader/loader_axes.hpp"
#include "pipeline/data_axes.hpp"

namespace hdbench {

struct LoaderOptions {
  std::vector<int> batches = {32, 64, 128, 256, 512, 1024, 2048, 4096};
  std::vector<int> workers = {0, 1, 2, 4, 8, 16};
  std::vector<int> depths = {2};  // prefetch depth per worker
  std::vector<double> costs_us = {0.0, 20.0};
  std::vector<bool> shuffle = {true};
  std::vector<PinMode> pinning = all_pin_modes();
  std::vector<BatchBuild> builds = all_batch_builds();
  std::vector<Augment> augments = {Augment::none};
  std::vector<LoaderConsumer> consumers = all_loader_consumers();
  // The default preset's cases with a per-sample cost take one pinning mode (PyTorch's pin
  // thread): such an epoch is bound by building batches, not by the copy, so pinning is
  // answered by the cost-0 cases (and the costed ones took ~40 s of an H200's default run).
  // False when the preset is another or --hdbench_loader_pinning/_costs_us was given.
  bool costed_one_pinning = false;
};

void declare_loader_flags(FlagParser& flags, LoaderOptions& options);

}  // namespace hdbench
