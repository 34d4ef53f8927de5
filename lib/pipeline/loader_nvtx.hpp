// The loader family's NVTX category, declared with the Loader because the mlp family's
// epochs run the same Loader (its description: loader/loader_description.hpp).
#pragma once

#include "core/nvtx.hpp"

namespace hdbench {

inline constexpr nvtx::Category kLoaderNvtx{"loader", 0xFF8C564B};

}  // namespace hdbench
