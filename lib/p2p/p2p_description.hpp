// The p2p area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kP2pNvtx{"p2p", 0xFFF7B6D2};

FamilyDescription p2p_description();

}  // namespace hdbench
