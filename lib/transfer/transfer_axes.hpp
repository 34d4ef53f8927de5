// The transfer area's axes: which way a copy goes and which engine moves it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/host_memory.hpp"

namespace hdbench {

// all_to_host / host_to_all: every selected GPU (--hdbench_devices) copies at once
// between its own device buffer and its own pinned host buffer (all_gpu_copy.hpp).
enum class Direction { h2d, d2h, bidir, all_to_host, host_to_all };
enum class Engine {
  copy,  // the DMA copy engines, driven by cudaMemcpyAsync
  sm,    // a kernel loading and storing through mapped host memory (zero-copy)
};

// Where a copy's host buffer lives: on the GPU's own NUMA node, or on the node
// farthest from it (numa.hpp; skipped with the reason on a one-node machine).
enum class NumaPlacement { near, far };

const char* to_string(Direction direction) noexcept;
const char* to_string(NumaPlacement placement) noexcept;
std::optional<NumaPlacement> numa_placement_from_string(std::string_view name);
std::vector<NumaPlacement> all_numa_placements();
// h2d and d2h: one copy on one GPU (the transfer and staged benchmarks).
bool is_one_way(Direction direction) noexcept;
// The one-way copy each GPU makes in all_to_host (d2h) and host_to_all (h2d);
// `direction` itself otherwise.
Direction per_gpu_direction(Direction direction) noexcept;
bool is_all_gpus(Direction direction) noexcept;
const char* to_string(Engine engine) noexcept;
std::optional<Direction> direction_from_string(std::string_view name);
std::optional<Engine> engine_from_string(std::string_view name);
std::vector<Direction> all_directions();
std::vector<Engine> all_engines();

// Which host memory kinds an engine is measured with: the copy engine with every
// kind but `mapped` (to a DMA engine it is plain pinned memory); the SM engine with
// the kinds a kernel can dereference over the bus.
bool engine_uses_kind(Engine engine, HostMemoryKind kind) noexcept;

}  // namespace hdbench
