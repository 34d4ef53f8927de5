// The NUMA placement axis of the transfer family: which node a GPU's host buffer is
// placed on for `near` and `far`, or why that case cannot run here. Resolved at
// registration from the GPU's node (sysfs numa_node) and the host's nodes (numa.hpp);
// at run time the buffer is allocated under numa::PreferredNodeScope and the node it
// landed on is read back.
#pragma once

#include <string>
#include <vector>

#include "core/case_grid.hpp"
#include "core/numa.hpp"
#include "transfer/transfer_axes.hpp"

namespace hdbench {

struct NumaTarget {
  int node = -1;            // -1: placement left to the OS (near, with the GPU's node unknown)
  std::string skip_reason;  // non-empty: the case is registered as skipped with it
};

// `gpu_node` is the GPU's NUMA node (-1 unknown); `nodes` the host's (numa::read_nodes);
// `binding_reason` is empty when libnuma can bind, else why not. Near: the GPU's node,
// or the only node of a one-node machine, or -1 (unbound) when unknown. Far: the node
// farthest from the GPU's; skipped on a one-node machine, when the GPU's node is
// unknown, or when binding is unavailable.
NumaTarget numa_target(NumaPlacement placement, int gpu_node, const std::vector<numa::Node>& nodes,
                       const std::string& binding_reason, const std::string& sysfs_root = "/sys");

// The placement axis of a case grid: in every case's params, in its name only when not
// near (names stay what they were before the axis): ".../numa:far".
CaseAxis<NumaPlacement> numa_case_axis(std::vector<NumaPlacement> placements);

}  // namespace hdbench
