// The device_local area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kDeviceLocalNvtx{"device_local", 0xFF17BECF};

FamilyDescription device_local_description();

}  // namespace hdbench
