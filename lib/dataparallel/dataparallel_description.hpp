// The dataparallel area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kDataParallelNvtx{"dataparallel", 0xFFC49C94};

FamilyDescription dataparallel_description();

}  // namespace hdbench
