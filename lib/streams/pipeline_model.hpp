// What a copy → kernel → copy pipeline could reach at best, and how much arithmetic
// makes the kernel take a chosen time. Pure functions: the benchmarks feed them
// measured stage times; the tests feed them numbers whose answers are known.
#pragma once

#include <optional>

namespace hdbench {

// Each stage alone over the whole buffer (all chunks back to back on one stream).
struct StageSeconds {
  double h2d = 0.0;
  double kernel = 0.0;
  double d2h = 0.0;
  double sum() const noexcept { return h2d + kernel + d2h; }
};

// How the copies are issued. cudaMemcpyAsync of pinned memory returns at once. Of
// pageable memory it is host-synchronous: an H2D returns once the driver has staged
// the source out of the buffer, a D2H once the copy has completed. The one host
// thread that issues the pipeline therefore does one copy at a time: no copy overlaps
// another, whatever the number of copy engines, though kernels queued earlier still
// run beside them.
enum class CopyIssue { async, host_synchronous };

// The lower bound on a pipeline of `chunks` equal chunks: the busiest resource's total
// plus the fill (stages of the first chunk before it) and drain (after it). With two or
// more copy engines H2D, kernel and D2H are three resources; with one, H2D and D2H
// share it, and so they do with host-synchronous copies (the issuing thread is then the
// one resource every copy needs). One chunk (or zero engines: copies cannot overlap
// kernels) gives the plain sum. Throws std::invalid_argument for chunks < 1 or
// negative times.
double ideal_pipeline_seconds(const StageSeconds& alone, int chunks, int copy_engines,
                              CopyIssue issue = CopyIssue::async);

// Kernel time as a straight line in its rounds of arithmetic: seconds = fixed + per_round·rounds.
struct RoundsModel {
  double fixed_seconds = 0.0;
  double seconds_per_round = 0.0;
};

// The line through two measurements (rounds_a != rounds_b); nullopt when the slope is
// not positive (timer noise swamped the difference: measure with more rounds).
std::optional<RoundsModel> fit_rounds_model(int rounds_a, double seconds_a, int rounds_b, double seconds_b);

// Rounds that make the kernel take `target_seconds`, within [1, max_rounds].
int rounds_for_seconds(const RoundsModel& model, double target_seconds, int max_rounds);

}  // namespace hdbench
