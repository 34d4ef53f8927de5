// The managed area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kManagedNvtx{"managed", 0xFFAEC7E8};

FamilyDescription managed_description();

}  // namespace hdbench
