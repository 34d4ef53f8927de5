#include "axes.hpp"

namespace hdbench {
namespace {

// An axis value from its spelling: the one whose to_string() matches.
template <typename Enum>
std::optional<Enum> lookup(std::string_view name, const std::vector<Enum>& all) {
  for (Enum value : all) {
    if (name == to_string(value)) return value;
  }
  return std::nullopt;
}

}  // namespace

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

const char* to_string(IssueOrder order) noexcept {
  switch (order) {
    case IssueOrder::by_chunk:
      return "by_chunk";
    case IssueOrder::by_stage:
      return "by_stage";
  }
  return "unknown";
}

const char* to_string(PinMode mode) noexcept {
  switch (mode) {
    case PinMode::pageable:
      return "pageable";
    case PinMode::pin_thread:
      return "pin_thread";
    case PinMode::direct:
      return "direct";
  }
  return "unknown";
}

const char* to_string(Augment augment) noexcept {
  switch (augment) {
    case Augment::none:
      return "none";
    case Augment::crop_flip:
      return "crop_flip";
  }
  return "unknown";
}

const char* to_string(LoaderConsumer consumer) noexcept {
  switch (consumer) {
    case LoaderConsumer::host:
      return "host";
    case LoaderConsumer::gpu:
      return "gpu";
  }
  return "unknown";
}

const char* to_string(Processor processor) noexcept { return processor == Processor::cpu ? "cpu" : "gpu"; }

const char* to_string(BatchSource source) noexcept {
  switch (source) {
    case BatchSource::device:
      return "device";
    case BatchSource::pageable:
      return "pageable";
    case BatchSource::pinned:
      return "pinned";
  }
  return "unknown";
}

std::vector<Direction> all_directions() { return {Direction::h2d, Direction::d2h, Direction::bidir}; }
std::vector<Engine> all_engines() { return {Engine::copy, Engine::sm}; }
std::vector<IssueOrder> all_issue_orders() { return {IssueOrder::by_chunk, IssueOrder::by_stage}; }
std::vector<PinMode> all_pin_modes() { return {PinMode::pageable, PinMode::pin_thread, PinMode::direct}; }
std::vector<Augment> all_augments() { return {Augment::none, Augment::crop_flip}; }
std::vector<LoaderConsumer> all_loader_consumers() { return {LoaderConsumer::host, LoaderConsumer::gpu}; }

std::vector<Processor> all_processors() { return {Processor::cpu, Processor::gpu}; }
std::vector<BatchSource> all_batch_sources() {
  return {BatchSource::device, BatchSource::pageable, BatchSource::pinned};
}

std::optional<Direction> direction_from_string(std::string_view name) { return lookup(name, all_directions()); }
std::optional<Engine> engine_from_string(std::string_view name) { return lookup(name, all_engines()); }
std::optional<IssueOrder> issue_order_from_string(std::string_view name) { return lookup(name, all_issue_orders()); }
std::optional<PinMode> pin_mode_from_string(std::string_view name) { return lookup(name, all_pin_modes()); }
std::optional<Augment> augment_from_string(std::string_view name) { return lookup(name, all_augments()); }
std::optional<LoaderConsumer> loader_consumer_from_string(std::string_view name) {
  return lookup(name, all_loader_consumers());
}

std::optional<Processor> processor_from_string(std::string_view name) { return lookup(name, all_processors()); }
std::optional<BatchSource> batch_source_from_string(std::string_view name) {
  return lookup(name, all_batch_sources());
}

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
