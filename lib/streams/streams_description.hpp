// The streams area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kStreamsNvtx{"streams", 0xFF9467BD};

FamilyDescription streams_description();

}  // namespace hdbench
