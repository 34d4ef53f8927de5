// The transfer area's families described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"

namespace hdbench {

inline constexpr nvtx::Category kTransferNvtx{"transfer", 0xFF1F77B4};
inline constexpr nvtx::Category kPinningNvtx{"pinning", 0xFFFF7F0E};
inline constexpr nvtx::Category kStagedNvtx{"staged", 0xFF2CA02C};
inline constexpr nvtx::Category kHostMemcpyNvtx{"host_memcpy", 0xFFD62728};

FamilyDescription transfer_description();
FamilyDescription pinning_description();
FamilyDescription staged_description();
FamilyDescription host_memcpy_description();

}  // namespace hdbench
