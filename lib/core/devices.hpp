// --hdbench_devices: which GPUs the run uses: "all", or a list of indices; absent, the
// one device of --hdbench_device. Single-GPU benchmarks run once on each (Suite::add_gpu);
// the multi-device ones use them together. Resolved against the GPUs
// discovery found (after parsing, since parsing needs no CUDA).
#pragma once

#include <string>
#include <vector>

#include "core/flags.hpp"

namespace hdbench {

struct DeviceSelection {
  bool all = false;
  std::vector<int> list;  // empty with all == false: the --hdbench_device default
};

void declare_device_flags(FlagParser& flags, DeviceSelection& selection);

// The device indices to use on a machine with `gpu_count` GPUs; `default_device` is
// --hdbench_device. Throws UsageError for an index the machine does not have (with
// no GPU, the selection stands as given: those benchmarks register as skipped).
std::vector<int> resolve_devices(const DeviceSelection& selection, int default_device, int gpu_count);

}  // namespace hdbench
