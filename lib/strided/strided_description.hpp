// The strided family described once: its params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kStridedNvtx{"strided", 0xFF98DF8A};

FamilyDescription strided_description();

}  // namespace hdbench
