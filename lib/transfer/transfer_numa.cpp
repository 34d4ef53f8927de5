#include "transfer/transfer_numa.hpp"

#include <fmt/format.h>

namespace hdbench {

NumaTarget numa_target(NumaPlacement placement, int gpu_node, const std::vector<numa::Node>& nodes,
                       const std::string& binding_reason, const std::string& sysfs_root) {
  if (placement == NumaPlacement::near) {
    if (!binding_reason.empty()) return {};
    if (gpu_node >= 0) return {gpu_node, ""};
    return nodes.size() == 1 ? NumaTarget{nodes.front().id, ""} : NumaTarget{};
  }
  if (std::string reason = numa::far_node_skip_reason(nodes); !reason.empty()) return {-1, std::move(reason)};
  if (gpu_node < 0) {
    return {-1, "the GPU's NUMA node is unknown (its sysfs numa_node is -1): no near or far node to tell apart"};
  }
  if (!binding_reason.empty()) return {-1, "cannot place host memory on a NUMA node: " + binding_reason};
  const auto far = numa::far_node(nodes, gpu_node, sysfs_root);
  if (!far) return {-1, fmt::format("no NUMA node other than the GPU's node {}", gpu_node)};
  return {*far, ""};
}

CaseAxis<NumaPlacement> numa_case_axis(std::vector<NumaPlacement> placements) {
  CaseAxis<NumaPlacement> axis = shown_as(named_case_axis("numa", std::move(placements)), Shown::labelled);
  axis.shown_for = [](const NumaPlacement& p) { return p == NumaPlacement::near ? Shown::hidden : Shown::labelled; };
  return axis;
}

}  // namespace hdbench
