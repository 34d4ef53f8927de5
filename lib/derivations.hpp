// Figures derived from the finished runs of a report: what no single benchmark can
// say alone. Pure functions over the report's "benchmarks" array, adding their rows
// to "derived"; a derivation whose inputs are missing adds nothing.
#pragma once

#include <nlohmann/json.hpp>

namespace hdbench {

// pinning_break_even: after how many transfers pinning (malloc_host or register)
// pays for its own cost, per size and direction.
void derive_break_even(const nlohmann::json& benchmarks, nlohmann::json& derived);
// staged_vs_pinned: the best staged configuration per direction and size against
// the pinned and pageable copies.
void derive_staged_vs_pinned(const nlohmann::json& benchmarks, nlohmann::json& derived);
// per_copy_vs_reference_loop: event-per-copy timing against a plain loop.
void derive_reference_agreement(const nlohmann::json& benchmarks, nlohmann::json& derived);
// stream_overlap: per size, compute ratio and memory kind, the fastest sync, async,
// pipelined, graph and default-stream runs, what each saves over sync, and how much
// a launch on the legacy default stream slows a pipeline down.
void derive_stream_overlap(const nlohmann::json& benchmarks, nlohmann::json& derived);
// loader_scaling: per loader grid point and depth, samples/s by worker count, the
// speedup over 0 workers and the best worker count. loader_pinning: direct pinned
// collation against PyTorch's pin thread (and pageable) at the same grid point.
void derive_loader_scaling(const nlohmann::json& benchmarks, nlohmann::json& derived);

}  // namespace hdbench
