// The transfer area's axes: which way a copy goes and which engine moves it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/host_memory.hpp"

namespace hdbench {

enum class Direction { h2d, d2h, bidir };
enum class Engine {
  copy,  // the DMA copy engines, driven by cudaMemcpyAsync
  sm,    // a kernel loading and storing through mapped host memory (zero-copy)
};

const char* to_string(Direction direction) noexcept;
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
