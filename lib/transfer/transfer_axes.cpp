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

std::vector<Direction> all_directions() { return {Direction::h2d, Direction::d2h, Direction::bidir}; }
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
