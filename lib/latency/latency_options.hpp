// The latency family's flags: the small copies' sizes and host memory, and which
// pointer chases run.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "core/flags.hpp"
#include "core/host_memory.hpp"

namespace hdbench {

// Where the chased chain lives.
enum class ChaseMemory {
  mapped_host,  // pinned host memory the GPU reads over the link: one load's round trip
  device,       // device memory: the memory's own latency, the floor to read the first against
};

const char* to_string(ChaseMemory m) noexcept;
std::optional<ChaseMemory> chase_memory_from_string(std::string_view name);
std::vector<ChaseMemory> all_chase_memories();

struct LatencyOptions {
  std::vector<std::size_t> sizes = {4, 64, 1024, 4096, 65536};
  std::vector<HostMemoryKind> memory = {HostMemoryKind::pinned, HostMemoryKind::pageable};
  std::vector<ChaseMemory> chases = all_chase_memories();
};

void declare_latency_flags(FlagParser& flags, LatencyOptions& options);

}  // namespace hdbench
