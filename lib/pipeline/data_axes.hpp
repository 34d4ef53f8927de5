// The input pipeline's axes (shared by the loader and mlp families): how worker
// threads' batches reach page-locked memory, how workers share the building of a
// batch, and the per-sample augmentation.
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
// How the workers build a batch.
enum class BatchBuild {
  whole,  // one worker builds a whole batch, as PyTorch's workers do
  split,  // a batch is split in parts that any worker takes: the first batch of an epoch
          // is ready after a part's time, and a worker the host deschedules holds up a
          // part of the batch the consumer waits for, not all of it
};
// Per-sample augmentation (sample_transform.hpp).
enum class Augment {
  none,
  crop_flip,  // a random crop of the zero-padded image (a shift), and a horizontal flip for half
};

const char* to_string(PinMode mode) noexcept;
std::optional<PinMode> pin_mode_from_string(std::string_view name);
std::vector<PinMode> all_pin_modes();
const char* to_string(BatchBuild build) noexcept;
std::optional<BatchBuild> batch_build_from_string(std::string_view name);
std::vector<BatchBuild> all_batch_builds();
const char* to_string(Augment augment) noexcept;
std::optional<Augment> augment_from_string(std::string_view name);
std::vector<Augment> all_augments();

}  // namespace hdbench
