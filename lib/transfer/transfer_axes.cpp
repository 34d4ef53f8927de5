#include "transfer/transfer_axes.hpp"

#include "core/enum_names.hpp"

namespace hdbench {

const char* to_string(Direction direction) noexcept {
  switch (direction) {
    case Direction::h2d:
      return "h2d";
    case Direction::d2h:
      return "d2h";
    case Direction::bidir:
      return "bidir";
    case Direction::all_to_host:
      return "all_to_host";
    case Direction::host_to_all:
      return "host_to_all";
  }
  return "unknown";
}

const char* to_string(NumaPlacement placement) noexcept {
  switch (placement) {
    case NumaPlacement::near:
      return "near";
    case NumaPlacement::far:
      return "far";
  }
  return "unknown";
}

const char* to_string(Engine engine) noexcept {
  switch (engine) {
    case Engine::copy:
      return "copy";
    case Engine::sm:
      return "sm";
  }
  return "unknown";
}

std::vector<Direction> all_directions() {
  return {Direction::h2d, Direction::d2h, Direction::bidir, Direction::all_to_host, Direction::host_to_all};
}
std::vector<NumaPlacement> all_numa_placements() { return {NumaPlacement::near, NumaPlacement::far}; }
std::optional<NumaPlacement> numa_placement_from_string(std::string_view name) {
  return enum_from_name(name, all_numa_placements());
}

bool is_one_way(Direction direction) noexcept { return direction == Direction::h2d || direction == Direction::d2h; }
bool is_all_gpus(Direction direction) noexcept {
  return direction == Direction::all_to_host || direction == Direction::host_to_all;
}
Direction per_gpu_direction(Direction direction) noexcept {
  switch (direction) {
    case Direction::all_to_host:
      return Direction::d2h;
    case Direction::host_to_all:
      return Direction::h2d;
    default:
      return direction;
  }
}
std::vector<Engine> all_engines() { return {Engine::copy, Engine::sm}; }
std::optional<Direction> direction_from_string(std::string_view name) { return enum_from_name(name, all_directions()); }
std::optional<Engine> engine_from_string(std::string_view name) { return enum_from_name(name, all_engines()); }

bool engine_uses_kind(Engine engine, HostMemoryKind kind) noexcept {
  switch (engine) {
    case Engine::copy:
      return kind != HostMemoryKind::mapped;
    case Engine::sm:
      return kind == HostMemoryKind::mapped || kind == HostMemoryKind::pinned_wc || kind == HostMemoryKind::registered;
  }
  return false;
}

}  // namespace hdbench
