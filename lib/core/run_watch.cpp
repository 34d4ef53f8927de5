#include "core/run_watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

namespace hdbench {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// The watch and the benchmark in flight. One mutex: the sampling loop touches it once a
// sample, the watchdog every kTick.
struct InFlight {
  std::mutex mutex;
  std::condition_variable changed;  // wakes the watchdog (stop) and the hang hook (cancel)
  bool watching = false;
  bool stopping = false;  // the RunWatch is being destroyed
  WatchLimits limits;
  LastResort last_resort;
  Clock::time_point run_started;
  bool running = false;
  std::string name;
  Clock::time_point started;
  std::string_view phase = "set-up";
  std::size_t samples = 0;
  Cut cut;
  bool cancelled = false;
  Clock::time_point cancelled_at;
  std::list<const std::function<void(const std::string&)>*> hooks;  // the live CancelHooks'
  // Joined, not detached, by ~RunWatch: a detached watchdog can still be listed in
  // /proc/self/task after the watch ends, which failed a thread-count test in CI.
  std::thread watchdog;
};

InFlight& in_flight() {
  static InFlight state;
  return state;
}

constexpr auto kTick = std::chrono::milliseconds(50);

std::string samples_text(std::size_t n) { return fmt::format("{} sample{}", n, n == 1 ? "" : "s"); }

std::string budget_message(const InFlight& s) {
  return fmt::format("cut by --hdbench_max_minutes budget after {} in {}", samples_text(s.samples), s.phase);
}
std::string deadline_message(const InFlight& s) {
  return fmt::format("deadline of {:g} s passed after {} in {} (--hdbench_deadline_seconds)", s.limits.deadline_seconds,
                     samples_text(s.samples), s.phase);
}

std::optional<Clock::time_point> budget_end(const InFlight& s) {
  if (s.limits.budget_seconds <= 0) return std::nullopt;
  return s.run_started + seconds(s.limits.budget_seconds);
}
std::optional<Clock::time_point> deadline_end(const InFlight& s) {
  if (s.limits.deadline_seconds <= 0) return std::nullopt;
  return s.started + seconds(s.limits.deadline_seconds);
}

// Records the first cut of the benchmark in flight; the caller holds the lock.
void cut_locked(InFlight& s, CutKind kind) {
  if (s.cut.kind != CutKind::none) return;
  s.cut = {kind, kind == CutKind::budget ? budget_message(s) : deadline_message(s)};
}

// The watchdog's look at the benchmark in flight: cancel it when due, and say why the
// last resort is due (nullopt while it is not).
std::optional<std::string> watch_once(InFlight& s, Clock::time_point now) {
  if (!s.running) return std::nullopt;
  const auto budget = budget_end(s);
  const auto deadline = deadline_end(s);
  if (!s.cancelled) {
    const bool budget_due = budget && now >= *budget + seconds(kBudgetCancelGraceSeconds);
    const bool deadline_due = deadline && now >= *deadline;
    if (!budget_due && !deadline_due) return std::nullopt;
    cut_locked(s, deadline_due ? CutKind::deadline : CutKind::budget);
    s.cancelled = true;
    s.cancelled_at = now;
    s.changed.notify_all();
    return std::nullopt;
  }
  if (now < s.cancelled_at + seconds(kLastResortGraceSeconds)) return std::nullopt;
  return fmt::format("{}; still running {:g} s after it was asked to stop", s.cut.message, kLastResortGraceSeconds);
}

// Calls every hook with the cut's message; the caller holds the lock (a hook only signals).
void call_hooks(const InFlight& s) {
  for (const auto* hook : s.hooks) (*hook)(s.cut.message);
}

}  // namespace

double default_deadline_seconds(double timeout_seconds) {
  return std::max(kMinDeadlineSeconds, kDeadlineTimeouts * timeout_seconds);
}

RunWatch::RunWatch(WatchLimits limits, LastResort last_resort) : limits_(limits) {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  if (s.watching) throw std::logic_error("RunWatch: one at a time");
  s.watching = true;
  s.stopping = false;
  s.limits = limits;
  s.last_resort = std::move(last_resort);
  s.run_started = Clock::now();
  s.running = false;
  s.watchdog = std::thread([] {
    InFlight& st = in_flight();
    std::unique_lock lk(st.mutex);
    while (!st.stopping) {
      st.changed.wait_for(lk, kTick);
      if (st.stopping) break;
      const bool was_cancelled = st.cancelled;
      const std::optional<std::string> last = watch_once(st, Clock::now());
      if (!was_cancelled && st.cancelled) call_hooks(st);
      if (!last) continue;
      const std::string name = st.name;
      LastResort resort = st.last_resort;
      lk.unlock();
      if (resort) resort(name, *last);
      std::_Exit(1);
    }
    st.watching = false;
    st.changed.notify_all();
  });
}

RunWatch::~RunWatch() {
  InFlight& s = in_flight();
  std::thread watchdog;
  {
    std::unique_lock lock(s.mutex);
    s.stopping = true;
    s.changed.notify_all();
    s.changed.wait(lock, [&] { return !s.watching; });  // the watchdog has let go of the state
    s.running = false;
    s.last_resort = {};
    watchdog = std::move(s.watchdog);
  }
  watchdog.join();
}

bool RunWatch::budget_spent() const {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  const auto end = budget_end(s);
  return end && Clock::now() >= *end;
}

void RunWatch::begin(const std::string& name) {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  s.running = true;
  s.name = name;
  s.started = Clock::now();
  s.phase = "set-up";
  s.samples = 0;
  s.cut = {};
  s.cancelled = false;
}

Cut RunWatch::end() {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  s.running = false;
  s.cancelled = false;
  return std::exchange(s.cut, {});
}

Cut current_cut() {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  return s.running ? s.cut : Cut{};
}

void sampling_started() {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  if (s.running) s.phase = "sampling";
}

void sample_taken(std::size_t samples) {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  if (s.running) s.samples = samples;
}

void sampling_ended() {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  if (s.running) s.phase = "after sampling";
}

bool sampling_must_stop(std::size_t samples) {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  if (!s.running) return false;
  s.samples = samples;
  if (s.cut.kind != CutKind::none) return true;
  const auto now = Clock::now();
  if (const auto deadline = deadline_end(s); deadline && now >= *deadline) {
    cut_locked(s, CutKind::deadline);
  } else if (const auto budget = budget_end(s); budget && now >= *budget) {
    cut_locked(s, CutKind::budget);
  }
  return s.cut.kind != CutKind::none;
}

bool cancel_requested() {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  return s.running && s.cancelled;
}

CancelHook::CancelHook(std::function<void(const std::string&)> on_cancel) : on_cancel_(std::move(on_cancel)) {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  s.hooks.push_back(&on_cancel_);
  if (s.running && s.cancelled) on_cancel_(s.cut.message);
}

CancelHook::~CancelHook() {
  InFlight& s = in_flight();
  std::lock_guard lock(s.mutex);
  s.hooks.remove(&on_cancel_);
}

void test_hang_hook(std::size_t samples) {
  const char* pattern = std::getenv("HDBENCH_TEST_HANG");
  if (pattern == nullptr || *pattern == '\0' || samples != 1) return;
  InFlight& s = in_flight();
  std::unique_lock lock(s.mutex);
  if (!s.running || s.name.find(pattern) == std::string::npos) return;
  const char* mode = std::getenv("HDBENCH_TEST_HANG_MODE");
  const bool stuck = mode != nullptr && std::string_view(mode) == "stuck";
  s.phase = "sampling";
  // Said, so that a test signals a run once it hangs rather than after a guessed sleep.
  fmt::print(stderr, "hdbench: test hook HDBENCH_TEST_HANG: {} hangs in its second sample\n", s.name);
  std::fflush(stderr);
  while (stuck || !s.cancelled) s.changed.wait_for(lock, kTick);
  throw BenchmarkCancelled(fmt::format("test hook HDBENCH_TEST_HANG: the sample was cancelled ({})", s.cut.message));
}

}  // namespace hdbench
