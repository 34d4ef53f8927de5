// The mlp area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kMlpNvtx{"mlp", 0xFFE377C2};

FamilyDescription mlp_description();

}  // namespace hdbench
