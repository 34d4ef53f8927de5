// The run's budget and each benchmark's deadline, held while a benchmark runs, not only
// when it starts: a run never hangs on one benchmark, and its report is always written.
//
// - Between samples, the sampling loop (core/stopping_rule) asks sampling_must_stop():
//   once the --hdbench_max_minutes budget is spent the benchmark is cut there and
//   reported as skipped ("cut by --hdbench_max_minutes budget after N samples in
//   sampling"); once its own deadline has passed it is an error ("deadline of X s
//   passed after N samples in <phase>"). Either way the run goes on (or winds down).
// - A sample that cannot end by itself (a loader epoch that never completes) is asked
//   to stop by the watchdog thread: at the deadline, or kBudgetCancelGraceSeconds after
//   the budget's end, it runs every registered CancelHook (the Loader registers one)
//   and cancel_requested() turns true; the work throws, and the benchmark is reported
//   with the cut's reason.
// - Last resort: a benchmark that still has not returned kLastResortGraceSeconds after
//   it was cancelled: the watchdog calls the run's last-resort function, which writes the
//   report (what completed, and the benchmark in flight marked) and ends the process
//   with exit code 1.
//
// Benchmarks run one at a time, so the benchmark in flight is process-wide state, set by
// Suite (begin/end around each call); without a RunWatch every function below is a no-op.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace hdbench {

// A benchmark's deadline by default: this many sampling timeouts, and never under the
// minimum (set-up, e.g. the CPU step's thread sweep or pinning gigabytes, counts too).
inline constexpr double kDeadlineTimeouts = 20.0;
inline constexpr double kMinDeadlineSeconds = 30.0;
// The sample in flight when the budget ends may finish (it is cut after it) before the
// watchdog asks it to stop.
inline constexpr double kBudgetCancelGraceSeconds = 2.0;
// From that request (or the deadline) to the last resort.
inline constexpr double kLastResortGraceSeconds = 10.0;

double default_deadline_seconds(double timeout_seconds);

enum class CutKind { none, budget, deadline };
struct Cut {
  CutKind kind = CutKind::none;
  std::string message;  // budget: the skip reason; deadline: the error
};

// Thrown by work that saw cancel_requested() (a sample that could not finish).
class BenchmarkCancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct WatchLimits {
  double budget_seconds = 0.0;    // the run's, from the RunWatch's construction; 0: none
  double deadline_seconds = 0.0;  // each benchmark's, from its start; 0: none
};

// (the benchmark in flight, why): writes the report and ends the process.
using LastResort = std::function<void(const std::string& in_flight, const std::string& why)>;

class RunWatch {
 public:
  // Starts the watchdog thread. One RunWatch at a time (std::logic_error otherwise).
  RunWatch(WatchLimits limits, LastResort last_resort);
  ~RunWatch();
  RunWatch(const RunWatch&) = delete;
  RunWatch& operator=(const RunWatch&) = delete;

  bool budget_spent() const;
  const WatchLimits& limits() const noexcept { return limits_; }
  // Suite, around each call of a benchmark: `end` returns how it was cut, if it was.
  void begin(const std::string& name);
  Cut end();

 private:
  WatchLimits limits_;
};

// The cut of the benchmark in flight so far (kind none when not cut or none in flight).
Cut current_cut();

// The sampling loop: sampling_started() before its first sample, sample_taken(n) after
// each, sampling_ended() after the last; sampling_must_stop(n) between samples.
void sampling_started();
void sample_taken(std::size_t samples);
void sampling_ended();
bool sampling_must_stop(std::size_t samples);

// True once the benchmark in flight has been asked to stop.
bool cancel_requested();

// While it lives, `on_cancel(why)` is called (on the watchdog thread) when the benchmark
// in flight is asked to stop; at once if it already was. It must only signal (set a flag,
// wake waiters), never block.
class CancelHook {
 public:
  explicit CancelHook(std::function<void(const std::string& why)> on_cancel);
  ~CancelHook();
  CancelHook(const CancelHook&) = delete;
  CancelHook& operator=(const CancelHook&) = delete;

 private:
  std::function<void(const std::string&)> on_cancel_;
};

// Test hook (documented in docs/measuring.md): when the environment variable
// HDBENCH_TEST_HANG is set and the benchmark in flight's name contains its value, the
// sample after the first one never ends by itself: it waits until cancelled and throws
// BenchmarkCancelled, or, with HDBENCH_TEST_HANG_MODE=stuck, ignores the cancellation
// (for the last resort). The sampling loop calls it after each sample.
void test_hang_hook(std::size_t samples);

}  // namespace hdbench
