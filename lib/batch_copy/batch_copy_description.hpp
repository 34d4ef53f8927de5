// The batch_copy area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kBatchCopyNvtx{"batch_copy", 0xFFFFBB78};

FamilyDescription batch_copy_description();

}  // namespace hdbench
