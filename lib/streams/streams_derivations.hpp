// Figures derived from the streams family's finished runs (see transfer_derivations.hpp
// for the shape every derivation shares).
#pragma once

#include <nlohmann/json.hpp>

namespace hdbench {

// stream_overlap: per size, compute ratio and memory kind, the fastest sync, async,
// pipelined, graph and default-stream runs, what each saves over sync, and how much
// a launch on the legacy default stream slows a pipeline down.
void derive_stream_overlap(const nlohmann::json& benchmarks, nlohmann::json& derived);

}  // namespace hdbench
