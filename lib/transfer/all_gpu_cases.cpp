#include "transfer/all_gpu_cases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/case_grid.hpp"
#include "core/option_values.hpp"

namespace hdbench {

NumaHost NumaHost::discover(const std::string& sysfs_root) {
  NumaHost host;
  host.nodes = numa::read_nodes(sysfs_root);
  numa::binding_available(&host.binding_reason);
  host.sysfs_root = sysfs_root;
  return host;
}

NumaTarget gpu_numa_target(NumaPlacement placement, const system::SystemInfo& system, int device,
                           const NumaHost& numa_host) {
  const bool known = device >= 0 && device < static_cast<int>(system.gpus.size());
  const int gpu_node = known ? system.gpus[static_cast<std::size_t>(device)].numa_node : -1;
  return numa_target(placement, gpu_node, numa_host.nodes, numa_host.binding_reason, numa_host.sysfs_root);
}

std::vector<AllGpuCase> plan_all_gpu_cases(const TransferOptions& options,
                                           const std::vector<HostMemoryKind>& memory_kinds,
                                           const std::vector<int>& devices, const system::SystemInfo& system,
                                           const NumaHost& numa_host) {
  std::vector<AllGpuCase> cases;
  const bool pinned = std::find(memory_kinds.begin(), memory_kinds.end(), HostMemoryKind::pinned) != memory_kinds.end();
  const bool copy = std::find(options.engines.begin(), options.engines.end(), Engine::copy) != options.engines.end();
  if (!pinned || !copy || devices.empty()) return cases;
  std::vector<Direction> all_gpus;
  std::copy_if(options.directions.begin(), options.directions.end(), std::back_inserter(all_gpus), is_all_gpus);
  for_each_case(
      "transfer", {"direction", "memory", "engine", "bytes"},
      [&](CaseId& id, Direction direction, NumaPlacement placement, std::size_t bytes, HostMemoryKind, Engine) {
        AllGpuCase c;
        c.direction = direction;
        c.bytes = bytes;
        c.numa = placement;
        c.devices = devices;
        for (const int device : devices) {
          const NumaTarget target = gpu_numa_target(placement, system, device, numa_host);
          c.numa_nodes.push_back(target.node);
          if (c.skip_reason.empty() && !target.skip_reason.empty()) {
            c.skip_reason = fmt::format("GPU {}: {}", device, target.skip_reason);
          }
        }
        id.param("variant", "concurrent")
            .param("devices", devices)
            .param("device_count", devices.size())
            .param("numa_node_requested", c.numa_nodes);
        c.name = id.name();
        c.params = id.params();
        cases.push_back(std::move(c));
      },
      named_case_axis("direction", all_gpus), numa_case_axis(options.numa),
      size_case_axis("bytes", options.all_gpu_sizes),
      // Pinned memory and the copy engine only: one value each.
      named_case_axis("memory", std::vector<HostMemoryKind>{HostMemoryKind::pinned}),
      named_case_axis("engine", std::vector<Engine>{Engine::copy}));
  return cases;
}

}  // namespace hdbench
