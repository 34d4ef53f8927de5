// The input pipeline's axes (shared by the loader and mlp families): how worker
// threads' batches reach page-locked memory, and the per-sample augmentation.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hdbench {

enum class PinMode {
  pageable,    // workers collate into pageable slots; the driver stages the copy
  pin_thread,  // PyTorch's pin_memory=True: pageable slots, one pin thread copies into pinned slots
  direct,      // workers collate straight into a ring of pinned slots; no extra copy
};
// Per-sample augmentation (sample_transform.hpp).
enum class Augment {
  none,
  crop_flip,  // a random crop of the zero-padded image (a shift), and a horizontal flip for half
};

const char* to_string(PinMode mode) noexcept;
std::optional<PinMode> pin_mode_from_string(std::string_view name);
std::vector<PinMode> all_pin_modes();
const char* to_string(Augment augment) noexcept;
std::optional<Augment> augment_from_string(std::string_view name);
std::vector<Augment> all_augments();

}  // namespace hdbench
