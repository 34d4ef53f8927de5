#include "axes.hpp"

namespace hdbench {

const char* to_string(Direction direction) noexcept {
  switch (direction) {
    case Direction::h2d: return "h2d";
    case Direction::d2h: return "d2h";
    case Direction::bidir: return "bidir";
  }
  return "unknown";
}

const char* to_string(Engine engine) noexcept {
  switch (engine) {
    case Engine::copy: return "copy";
    case Engine::sm: return "sm";
  }
  return "unknown";
}

std::vector<Direction> all_directions() { return {Direction::h2d, Direction::d2h, Direction::bidir}; }
std::vector<Engine> all_engines() { return {Engine::copy, Engine::sm}; }

std::optional<Direction> direction_from_string(std::string_view name) {
  for (Direction d : all_directions()) {
    if (name == to_string(d)) return d;
  }
  return std::nullopt;
}

std::optional<Engine> engine_from_string(std::string_view name) {
  for (Engine e : all_engines()) {
    if (name == to_string(e)) return e;
  }
  return std::nullopt;
}

const char* to_string(IssueOrder order) noexcept {
  switch (order) {
    case IssueOrder::by_chunk: return "by_chunk";
    case IssueOrder::by_stage: return "by_stage";
  }
  return "unknown";
}

std::vector<IssueOrder> all_issue_orders() { return {IssueOrder::by_chunk, IssueOrder::by_stage}; }

std::optional<IssueOrder> issue_order_from_string(std::string_view name) {
  for (IssueOrder order : all_issue_orders()) {
    if (name == to_string(order)) return order;
  }
  return std::nullopt;
}

bool engine_uses_kind(Engine engine, HostMemoryKind kind) noexcept {
  switch (engine) {
    case Engine::copy: return kind != HostMemoryKind::mapped;
    case Engine::sm:
      return kind == HostMemoryKind::mapped || kind == HostMemoryKind::pinned_wc ||
             kind == HostMemoryKind::registered;
  }
  return false;
}

}  // namespace hdbench
