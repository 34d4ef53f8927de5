// Figures derived from the loader family's finished runs (see transfer_derivations.hpp
// for the shape every derivation shares).
#pragma once

#include <nlohmann/json.hpp>

namespace hdbench {

// loader_scaling: per loader grid point and depth, samples/s by worker count, the
// speedup over 0 workers and the best worker count. loader_pinning: direct pinned
// collation against PyTorch's pin thread (and pageable) at the same grid point.
void derive_loader_scaling(const nlohmann::json& benchmarks, nlohmann::json& derived);

}  // namespace hdbench
