// The latency area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kLatencyNvtx{"latency", 0xFFBCBD22};

FamilyDescription latency_description();

}  // namespace hdbench
