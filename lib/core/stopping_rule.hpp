// How long a benchmark measures: nvbench's stopping rule instead of Google Benchmark's
// growing trials. Google Benchmark finds an iteration count by calling a benchmark
// function again and again (1, 10, 100, … iterations) until the summed manual time
// reaches --benchmark_min_time, and every call repeats the benchmark's set-up
// (allocation, pinning, warm-up, verification). With the rule, a benchmark runs one
// trial of one iteration (main passes --benchmark_min_time=0, so the first trial is
// final; see Suite::add) and that iteration takes samples until there are at least
// min_samples and their noise is at most the target, or until the wall time spent
// sampling reaches the timeout; the iteration's manual time is the median sample.
// A sample may time a group of units (steps, calls, copies: units_per_sample): the
// iteration then counts that many units (KeepRunningBatch), so Google Benchmark's Time
// column, bytes/items per second and compare.py are per unit of the work the
// benchmark names, whatever the group size of a run.
//
// The noise is how well the samples pin down that median: the half-width of a
// distribution-free ~95% confidence interval of the median, in percent of the median
// (noise_percent below explains the choice). stdev / mean, the rule's measure before,
// is still written as the counter stdev_percent: a few slow samples (a page fault, a
// clock change, another process on the link) inflate it without moving the median, and
// under it most benchmarks of an H100 run sampled until the timeout.
//
// Every benchmark loop calls run_samples (or time_grouped_calls, grouped_timing.hpp)
// with the suite's rule; without the rule (--benchmark_min_time given, or --hdbench_noise_target=0) it is
// Google Benchmark's loop: one sample per iteration, that sample the iteration's time.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace benchmark {
class State;
}

namespace hdbench {

struct StoppingRule {
  // The declared defaults are the full preset's; quick and default replace them.
  int min_samples = 20;
  double noise_target_percent = 0.5;  // noise_percent() of the samples at most this
  double timeout_seconds = 5.0;       // wall time spent sampling, per benchmark run
  bool enabled = true;                // false: Google Benchmark's own rule
};

// Seconds on a monotonic clock; tests pass a fake one.
using WallClock = std::function<double()>;
WallClock steady_wall_clock();

// Why a rule stopped, and the noise it reached (for the counters and for tests).
struct StoppingOutcome {
  std::size_t samples = 0;
  double noise_percent = 0.0;  // noise_percent() of the samples taken
  double stdev_percent = 0.0;  // stdev / mean of the same samples, 0 for fewer than two
  double median_seconds = 0.0;
  bool stopped_at_timeout = false;  // the timeout came before min_samples at the target noise
};

// Takes samples under `rule` until it is satisfied or its timeout passes (and at
// least three samples, or min_samples if fewer: one sample has no noise figure); `sample` runs one sample and returns
// its seconds. The noise is checked at min_samples, then after every sample up to 64 and, beyond, whenever the count
// has grown by a sixteenth since the last check (each check copies the samples and selects three ranks, O(n), so a fast
// benchmark's many samples cost O(1) each amortized; it may stop up to a sixteenth later than a check per sample
// would).
StoppingOutcome sample_until_stopped(const StoppingRule& rule, const WallClock& clock,
                                     const std::function<double()>& sample, std::vector<double>& seconds);

// Runs the iterations of `state`, returning every sample's seconds (for the family's
// counters); each sample covers `units_per_sample` units of work (0 counts as 1).
// Rule enabled: each turn (one, as hdbench runs it) samples until the rule stops,
// reports the median sample as the manual time of its units, and writes the counters
// noise_percent, stdev_percent, noise_target_percent, stopped_at_timeout (1 or 0) and
// samples (one sample: no noise figure exists, whatever noise_percent reads).
// Disabled: one sample per turn, reported as the manual time of its units.
std::vector<double> run_samples(benchmark::State& state, const StoppingRule& rule, const WallClock& clock,
                                const std::function<double()>& sample, std::size_t units_per_sample = 1);
// The same on the steady clock: what every benchmark calls, with the suite's rule
// (`suite.stopping_rule()`, passed down as nvbench passes its state: no hidden scope).
std::vector<double> run_samples(benchmark::State& state, const StoppingRule& rule,
                                const std::function<double()>& sample, std::size_t units_per_sample = 1);

// The rule's noise of `seconds`, in percent: the half-width of the distribution-free
// confidence interval of the median at ~95% (median_interval_ranks), relative to the
// median: 100 * (x[upper] - x[lower]) / 2 / median over the sorted samples.
//
// Why this measure:
// - It is about the figure hdbench reports, the median sample: the target reads "the
//   reported time is known to within +-target% (95%)". A spread measure (stdev, MAD)
//   describes single samples instead, and never shrinks with more of them.
// - It assumes no distribution (no normality): only that samples are independent
//   draws; the interval's coverage comes from the binomial count of samples below the
//   true median. Timings are skewed (a floor, a long slow tail), so that matters.
//   (Drift within a run, e.g. clocks settling, breaks independence and makes the
//   interval too narrow; no per-run statistic sees that, repeated runs do.)
// - An outlier moves a rank, never a value: however slow the rare sample, it only
//   counts as one sample above the median. Stable data with a few percent of outliers
//   stops at min_samples; stdev / mean of the same data can be tens of percent.
// - It still fails on noisy data: with two modes of similar weight (a link that
//   alternates between two speeds) the interval spans both for any n; and samples
//   spread evenly over +-s% of their median need ~(1.96 s / target)^2 of them (s = 50
//   at a 1% target: ~10^4), so such data runs to the timeout unless its samples are
//   cheap enough to pin the median that precisely, which is then a true statement.
// - Small n: a 95% interval needs at least 6 samples (the full range covers the median
//   with probability 1 - 2^(1-n)). Below that the interval is the full range, the
//   widest there is (coverage 50% at 2 samples, 94% at 5): the quick preset's 5
//   samples can still stop it, n identical samples give 0 and any spread counts.
// 0 for an empty input or a median of 0.
double noise_percent(const std::vector<double>& seconds);

// Sample stdev / mean in percent (the counter stdev_percent), 0 for fewer than two.
double stdev_percent(const std::vector<double>& seconds);

// 0-based ranks [lower, upper] in n sorted samples of the median's distribution-free
// confidence interval: lower = k - 1 and upper = n - k with k the largest whole number
// for which P(Binomial(n, 1/2) <= k - 1) <= 2.5% (so the coverage is
// 1 - 2 P(B <= k - 1) >= 95%), and k = 1 (the full range) where none is (n < 6).
// Exact binomial sums up to n = 1000, the normal approximation with continuity
// correction beyond (never narrower than the exact ranks, at most one rank wider up to
// n = 20000 at least). n = 10: [1, 8]; n = 100: [39, 60].
struct MedianInterval {
  std::size_t lower = 0;
  std::size_t upper = 0;
};
MedianInterval median_interval_ranks(std::size_t n);

}  // namespace hdbench
