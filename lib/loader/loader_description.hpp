// The loader area's family described once: params, counters and NVTX category
// (core/family_description.hpp).
#pragma once

#include "core/family_description.hpp"
#include "pipeline/loader_nvtx.hpp"

namespace hdbench {

FamilyDescription loader_description();

}  // namespace hdbench
