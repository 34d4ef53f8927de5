#include "pipeline/data_axes.hpp"

#include "core/enum_names.hpp"

namespace hdbench {

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

const char* to_string(BatchBuild build) noexcept {
  switch (build) {
    case BatchBuild::whole:
      return "whole";
    case BatchBuild::split:
      return "split";
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

std::vector<PinMode> all_pin_modes() { return {PinMode::pageable, PinMode::pin_thread, PinMode::direct}; }
std::vector<BatchBuild> all_batch_builds() { return {BatchBuild::whole, BatchBuild::split}; }
std::vector<Augment> all_augments() { return {Augment::none, Augment::crop_flip}; }
std::optional<PinMode> pin_mode_from_string(std::string_view name) { return enum_from_name(name, all_pin_modes()); }
std::optional<BatchBuild> batch_build_from_string(std::string_view name) {
  return enum_from_name(name, all_batch_builds());
}
std::optional<Augment> augment_from_string(std::string_view name) { return enum_from_name(name, all_augments()); }

}  // namespace hdbench
