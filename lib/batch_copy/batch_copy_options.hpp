// The batch_copy family's flags: how many tensors a batch holds and the ways it moves.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/flags.hpp"

namespace hdbench {

enum class BatchMethod {
  per_tensor,     // one cudaMemcpyAsync per tensor
  packed,         // gathered into one pinned buffer on the host (timed), then one copy
  batch_api,      // cudaMemcpyBatchAsync: one call for every tensor (CUDA 12.8+)
  mapped_kernel,  // one kernel gathers every tensor over mapped memory
  one_copy,       // the floor: one copy of a buffer that was already packed
};

const char* to_string(BatchMethod m) noexcept;
std::optional<BatchMethod> batch_method_from_string(std::string_view name);
std::vector<BatchMethod> all_batch_methods();

struct BatchCopyOptions {
  std::vector<int> tensors = {1, 2, 4, 8, 16, 32, 64};
  std::vector<BatchMethod> methods = all_batch_methods();
};

void declare_batch_copy_flags(FlagParser& flags, BatchCopyOptions& options);

}  // namespace hdbench
