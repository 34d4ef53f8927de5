// Figures derived from the transfer area's finished runs: what no single benchmark
// can say alone. Pure functions over the report's "benchmarks" array, adding their
// rows to "derived"; a derivation whose inputs are missing adds nothing.
#pragma once

#include <nlohmann/json.hpp>

namespace hdbench {

// pinning_break_even: after how many transfers pinning (malloc_host or register)
// pays for its own cost, per size and direction.
void derive_break_even(const nlohmann::json& benchmarks, nlohmann::json& derived);
// staged_vs_pinned: the best staged configuration per direction and size against
// the pinned and pageable copies, and per thread count against its bound,
// min(pinned copy, host memcpy at that thread count), naming the side that limits.
void derive_staged_vs_pinned(const nlohmann::json& benchmarks, nlohmann::json& derived);
// per_copy_vs_reference_loop: event-per-copy timing against a plain loop.
void derive_reference_agreement(const nlohmann::json& benchmarks, nlohmann::json& derived);

}  // namespace hdbench
