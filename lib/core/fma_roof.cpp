#include "core/fma_roof.hpp"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "core/timing.hpp"

namespace hdbench {
namespace {

// Independent accumulator chains: FMA latency (4-5 cycles) x FMA units (2) is the
// number in flight that keeps every unit busy; 12 cover both with registers to spare
// (16 ymm, 32 zmm).
constexpr int kChains = 12;
// A roof is the best trial, but one best trial on a busy host (another job, the
// hypervisor) may itself be low: trials go on until a second one comes within
// kAgreement of the best, at least kMinTrials and at most kMaxTrials of them.
constexpr int kMinTrials = 3;
constexpr int kMaxTrials = 15;
constexpr double kAgreement = 0.02;
constexpr double kTrialSeconds = 0.008;  // per trial; x trials x (one + all threads)
// All threads' trials run this many times longer: each is timed from the release to the
// last thread's end, so a thread that starts late (descheduled by the hypervisor, woken
// late) adds its delay to the trial. At one thread's length (about 5 ms there), the 16
// threads of an H100's host gave a roof of 840 GFLOP/s, 10.6x one thread's, and
// OpenBLAS's sgemm on the same 16 threads then ran at 1.38x that "roof".
constexpr int kAllThreadsTrialScale = 6;

// acc = acc * a + b converges to b / (1 - a) = 0.1: stays finite however long it runs.
constexpr float kA = 0.999999f;
constexpr float kB = 1e-7f;

// Each loop returns the sum of its accumulators so the compiler keeps the work. The
// accumulators must live in registers in every build (lib/CMakeLists.txt: -O3 in every
// build): the chains are unrolled by name, and the loops are left out of the sanitizers,
// whose stack checks otherwise keep the accumulators in memory (7 GFLOP/s a thread
// under ASan where the loop reaches ~100), and which find nothing to check in a
// register-only loop.
#define HDBENCH_ROOF_LOOP __attribute__((no_sanitize("address", "undefined")))
HDBENCH_ROOF_LOOP __attribute__((target("avx512f"))) float fma_loop_avx512(std::uint64_t iterations) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.01f * static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(kA);
  const __m512 b = _mm512_set1_ps(kB);
  for (std::uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  // Summed through memory: GCC 12 warns of an uninitialized value inside its own
  // _mm512_reduce_add_ps (GCC bug 105593), and this runs once a trial.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0.0f;
  for (float lane : lanes) total += lane;
  return total;
}

HDBENCH_ROOF_LOOP __attribute__((target("avx2,fma"))) float fma_loop_avx2(std::uint64_t iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.01f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(kA);
  const __m256 b = _mm256_set1_ps(kB);
  for (std::uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0.0f;
  for (float v : lanes) total += v;
  return total;
}

// AVX without FMA, and SSE: a multiply and an add a lane (two FLOPs, as an FMA counts).
HDBENCH_ROOF_LOOP __attribute__((target("avx"))) float mul_add_loop_avx(std::uint64_t iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.01f * static_cast<float>(c));
  const __m256 a = _mm256_set1_ps(kA);
  const __m256 b = _mm256_set1_ps(kB);
  for (std::uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_add_ps(_mm256_mul_ps(acc[c], a), b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0.0f;
  for (float v : lanes) total += v;
  return total;
}

HDBENCH_ROOF_LOOP float mul_add_loop_sse(std::uint64_t iterations) {
  __m128 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm_set1_ps(0.01f * static_cast<float>(c));
  const __m128 a = _mm_set1_ps(kA);
  const __m128 b = _mm_set1_ps(kB);
  for (std::uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], a), b);
  }
  __m128 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm_add_ps(sum, acc[c]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

struct Loop {
  const char* isa;
  float (*run)(std::uint64_t iterations);
  int lanes;
  double flops_per_iteration() const { return 2.0 * lanes * kChains; }
};

Loop loop_for(VectorLevel level) {
  switch (level) {
    case VectorLevel::avx512:
      return {"avx512", fma_loop_avx512, 16};
    case VectorLevel::avx2_fma:
      return {"avx2_fma", fma_loop_avx2, 8};
    case VectorLevel::avx:
      return {"avx", mul_add_loop_avx, 8};
    case VectorLevel::sse:
      break;
  }
  return {"sse", mul_add_loop_sse, 4};
}

std::atomic<float> sink{0.0f};  // the loops' results land here, so none is optimised away

// Iterations for one thread's trial to last about kTrialSeconds.
std::uint64_t calibrate(const Loop& loop) {
  std::uint64_t iterations = 1 << 12;
  for (;;) {
    const HostTimer timer;
    sink.store(loop.run(iterations), std::memory_order_relaxed);
    const double s = timer.elapsed_seconds();
    if (s >= kTrialSeconds / 8 || iterations >= (std::uint64_t{1} << 40)) {
      return std::max<std::uint64_t>(1,
                                     static_cast<std::uint64_t>(static_cast<double>(iterations) * kTrialSeconds / s));
    }
    iterations *= 4;
  }
}

// GFLOP/s of `threads` threads each running `iterations`, released together: the
// work over the time from release to the last thread's end.
double run_threads(const Loop& loop, int threads, std::uint64_t iterations) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::jthread> team;
  for (int t = 1; t < threads; ++t) {
    team.emplace_back([&] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      sink.store(loop.run(iterations), std::memory_order_relaxed);
    });
  }
  while (ready.load() < threads - 1) std::this_thread::yield();
  const HostTimer timer;
  go.store(true, std::memory_order_release);
  sink.store(loop.run(iterations), std::memory_order_relaxed);
  for (std::jthread& t : team) t.join();
  const double s = timer.elapsed_seconds();
  return static_cast<double>(threads) * static_cast<double>(iterations) * loop.flops_per_iteration() / s / 1e9;
}

RoofTrials confirmed_best(const Loop& loop, int threads, std::uint64_t iterations) {
  std::vector<double> rates;
  while (static_cast<int>(rates.size()) < kMaxTrials) {
    rates.push_back(run_threads(loop, threads, iterations));
    if (static_cast<int>(rates.size()) >= kMinTrials && roof_confirmed(rates, kAgreement)) break;
  }
  return {*std::max_element(rates.begin(), rates.end()), static_cast<int>(rates.size()),
          roof_confirmed(rates, kAgreement)};
}

}  // namespace

bool roof_confirmed(const std::vector<double>& rates, double agreement) {
  if (rates.size() < 2) return false;
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  return sorted[1] >= sorted[0] * (1.0 - agreement);
}

double FmaRoof::gflops_at(int work_threads) const noexcept {
  if (work_threads < 1) return 0.0;
  return std::min(static_cast<double>(work_threads) * one_thread_gflops,
                  std::max(all_threads_gflops, one_thread_gflops));
}

void FmaRoof::raise_to(const FmaRoof& later) {
  if (later.one_thread_gflops > one_thread_gflops) {
    one_thread_gflops = later.one_thread_gflops;
    one_thread = later.one_thread;
  }
  if (later.all_threads_gflops > all_threads_gflops) {
    all_threads_gflops = later.all_threads_gflops;
    all_threads = later.all_threads;
  }
  seconds += later.seconds;
}

double roof_for_work(FmaRoof& roof, int work_threads, double gflops, const std::function<FmaRoof()>& measure_again) {
  if (gflops <= roof.gflops_at(work_threads)) return roof.gflops_at(work_threads);
  roof.raise_to(measure_again());
  ++roof.remeasured;
  return roof.gflops_at(work_threads);
}

FmaRoof measure_fma_roof(VectorLevel level, int threads) {
  const HostTimer timer;
  const Loop loop = loop_for(level);
  const std::uint64_t iterations = calibrate(loop);
  FmaRoof roof;
  roof.isa = loop.isa;
  roof.threads = std::max(1, threads);
  roof.one_thread = confirmed_best(loop, 1, iterations);
  roof.all_threads = confirmed_best(loop, roof.threads, iterations * kAllThreadsTrialScale);
  roof.one_thread_gflops = roof.one_thread.best_gflops;
  roof.all_threads_gflops = roof.all_threads.best_gflops;
  roof.seconds = timer.elapsed_seconds();
  return roof;
}

namespace {

FmaRoof measure_this_machine() {
  const CpuFeatures cpu = discover_cpu_features();
  return measure_fma_roof(cpu.level(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

// Written only from the thread that runs the benchmarks, one at a time.
FmaRoof& machine_roof() {
  static FmaRoof roof = measure_this_machine();
  return roof;
}

}  // namespace

const FmaRoof& this_machine_fma_roof() { return machine_roof(); }

double this_machine_roof_for(int work_threads, double gflops) {
  return roof_for_work(machine_roof(), work_threads, gflops, measure_this_machine);
}

nlohmann::json to_json(const FmaRoof& roof) {
  return {{"isa", roof.isa},
          {"one_thread_GFLOP/s", roof.one_thread_gflops},
          {"all_threads_GFLOP/s", roof.all_threads_gflops},
          {"threads", roof.threads},
          {"measured_seconds", roof.seconds},
          {"one_thread_trials", roof.one_thread.trials},
          {"all_threads_trials", roof.all_threads.trials},
          // false: no two trials agreed within 2% (a busy host); the roof may be low, and
          // fractions of it high.
          {"confirmed", roof.one_thread.confirmed && roof.all_threads.confirmed},
          // how often CPU work beat the roof, so it was measured again and raised (roof_for_work)
          {"remeasured", roof.remeasured},
          {"method",
           "register-only fp32 FMA loop (12 independent chains) at the widest vector level; the best trial, "
           "trials repeated until a second comes within 2% of the best (3 to 15)"}};
}

}  // namespace hdbench
