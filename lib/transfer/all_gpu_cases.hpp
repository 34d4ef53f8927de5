// The grid of the all-GPU directions (all_to_host, host_to_all) and the NUMA axis of
// one-way copies, planned from the options and the discovered machine without CUDA,
// so names, params and skip reasons are testable on a GPU-less host.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/host_memory.hpp"
#include "core/numa.hpp"
#include "core/system.hpp"
#include "transfer/transfer_numa.hpp"
#include "transfer/transfer_options.hpp"

namespace hdbench {

// What registration knows of the host's NUMA nodes (read once per registration).
struct NumaHost {
  std::vector<numa::Node> nodes;
  std::string binding_reason;  // empty: libnuma can place memory
  std::string sysfs_root = "/sys";
  static NumaHost discover(const std::string& sysfs_root = "/sys");
};

struct AllGpuCase {
  Direction direction = Direction::all_to_host;
  std::size_t bytes = 0;
  NumaPlacement numa = NumaPlacement::near;
  std::vector<int> devices;
  std::vector<int> numa_nodes;  // per device; -1: placement left to the OS
  std::string name;
  nlohmann::json params;
  std::string skip_reason;  // non-empty: register as skipped with it
};

// The all-GPU cases of `options` over `devices` (resolved --hdbench_devices): pinned
// memory and the copy engine only, so none unless `memory_kinds` has pinned and
// `engines` has copy. One GPU is a valid selection (a single-device figure).
std::vector<AllGpuCase> plan_all_gpu_cases(const TransferOptions& options,
                                           const std::vector<HostMemoryKind>& memory_kinds,
                                           const std::vector<int>& devices, const system::SystemInfo& system,
                                           const NumaHost& numa_host);

// The NUMA node a GPU's host buffer goes to for `placement` (-1 unknown GPU).
NumaTarget gpu_numa_target(NumaPlacement placement, const system::SystemInfo& system, int device,
                           const NumaHost& numa_host);

}  // namespace hdbench
