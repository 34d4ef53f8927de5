// sgemm_probe: times single-precision GEMM in a BLAS library loaded at run time, at
// the shapes hdbench's CPU MLP step calls (lib/mlp/mlp_cpu.cpp: forward NoTrans×Trans
// b×out×in, input gradient NoTrans×NoTrans b×in×out for every layer but the first,
// weight gradient Trans×NoTrans out×in×b; all row-major, alpha 1, beta 0).
//
// Build: g++ -O2 -std=c++20 -pthread -o sgemm_probe sgemm_probe.cpp -ldl
// Run:   sgemm_probe --lib PATH [--api cblas|cblas64|dnnl] [--symbol-prefix P]
//          [--symbol-suffix S] [--name NAME] [--mode lib|team] [--threads N]
//          [--budget-s 0.3] [--max-repeats 100] [--clock-ghz G] [--fma-units 2]
//          [--json FILE]
//        sgemm_probe --fma-peak [--threads N] [--clock-ghz G] [--fma-units 2]
//          measures the FMA throughput N threads reach in a register-only loop (the
//          clock the cores really run vector FMAs at) and exits.
// --mode lib: the library threads each GEMM itself (its env var sets how many:
// OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS, OMP_NUM_THREADS); --threads only labels.
// --mode team: like hdbench's team_sgemm, N threads of ours split each GEMM's rows (or
// columns when wider than tall) in 16-aligned blocks and call the library in each;
// set the library's env var to 1 for this. GEMMs under 1 MFLOP run on one thread.
#include <dlfcn.h>
#include <immintrin.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

enum class Api { cblas, cblas64, dnnl };

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using Cblas32 = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using Cblas64 = void (*)(int, int, int, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                         const float*, std::int64_t, float, float*, std::int64_t);
using DnnlSgemm = int (*)(char, char, std::int64_t, std::int64_t, std::int64_t, float, const float*, std::int64_t,
                          const float*, std::int64_t, float, float*, std::int64_t);

struct Options {
  std::string lib, name, prefix, suffix, json, mode = "lib";
  Api api = Api::cblas;
  int threads = 1;
  double budget_s = 0.3;
  int max_repeats = 100;
  double clock_ghz = 0;
  int fma_units = 2;
  bool fma_peak = false;
};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "sgemm_probe: %s\n", message.c_str());
  std::exit(2);
}

// One row-major GEMM call C[m×n] = op(A)[m×k] · op(B)[k×n] through whichever API.
struct Blas {
  Api api = Api::cblas;
  void* handle = nullptr;
  Cblas32 c32 = nullptr;
  Cblas64 c64 = nullptr;
  DnnlSgemm dnnl = nullptr;
  std::string info;

  void gemm(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
            int ldc) const {
    switch (api) {
      case Api::cblas:
        c32(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
        break;
      case Api::cblas64:
        c64(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
        break;
      case Api::dnnl:
        if (int status = dnnl(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc); status != 0)
          die("dnnl_sgemm returned status " + std::to_string(status));
        break;
    }
  }
};

Blas load(const Options& o) {
  Blas blas;
  blas.api = o.api;
  blas.handle = dlopen(o.lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (blas.handle == nullptr) die(std::string("dlopen: ") + dlerror());
  auto sym = [&](const std::string& base) { return dlsym(blas.handle, (o.prefix + base + o.suffix).c_str()); };
  if (o.api == Api::dnnl) {
    blas.dnnl = reinterpret_cast<DnnlSgemm>(dlsym(blas.handle, "dnnl_sgemm"));
    if (blas.dnnl == nullptr) die("no dnnl_sgemm in " + o.lib);
    struct Version {
      int major, minor, patch;
      const char* hash;
      unsigned cpu_runtime, gpu_runtime;
    };
    if (auto version = reinterpret_cast<const Version* (*)()>(dlsym(blas.handle, "dnnl_version"))) {
      const Version* v = version();
      blas.info =
          "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
    }
    return blas;
  }
  void* f = sym("cblas_sgemm");
  if (f == nullptr) die("no " + o.prefix + "cblas_sgemm" + o.suffix + " in " + o.lib);
  if (o.api == Api::cblas)
    blas.c32 = reinterpret_cast<Cblas32>(f);
  else
    blas.c64 = reinterpret_cast<Cblas64>(f);
  // What the library says about itself, where it can (OpenBLAS, BLIS).
  if (auto config = reinterpret_cast<const char* (*)()>(sym("openblas_get_config"))) blas.info += config();
  if (auto core = reinterpret_cast<const char* (*)()>(sym("openblas_get_corename")))
    blas.info += std::string(" core=") + core();
  if (auto threads = reinterpret_cast<int (*)()>(sym("openblas_get_num_threads")))
    blas.info += " threads=" + std::to_string(threads());
  if (auto version = reinterpret_cast<const char* (*)()>(dlsym(blas.handle, "bli_info_get_version_str")))
    blas.info += std::string("BLIS ") + version();
  if (auto arch = reinterpret_cast<int (*)()>(dlsym(blas.handle, "bli_arch_query_id"))) {
    auto arch_name = reinterpret_cast<const char* (*)(int)>(dlsym(blas.handle, "bli_arch_string"));
    blas.info += std::string(" arch=") + (arch_name != nullptr ? arch_name(arch()) : std::to_string(arch()));
  }
  if (auto threads = reinterpret_cast<long (*)()>(dlsym(blas.handle, "bli_thread_get_num_threads")))
    blas.info += " threads=" + std::to_string(threads());
  return blas;
}

// hdbench's team split (lib/mlp/mlp_cpu.cpp team_sgemm), with a persistent pool.
class Team {
 public:
  explicit Team(int threads) : threads_(threads), start_(threads), done_(threads) {
    for (int t = 1; t < threads_; ++t)
      workers_.emplace_back([this, t] {
        for (;;) {
          start_.arrive_and_wait();
          if (stop_) return;
          job_(t);
          done_.arrive_and_wait();
        }
      });
  }
  ~Team() {
    stop_ = true;
    start_.arrive_and_wait();
    for (auto& w : workers_) w.join();
  }
  int threads() const { return threads_; }
  void run(const std::function<void(int)>& job) {
    job_ = job;
    start_.arrive_and_wait();
    job_(0);
    done_.arrive_and_wait();
  }

 private:
  int threads_;
  std::barrier<> start_, done_;
  std::function<void(int)> job_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

void team_gemm(Team& team, const Blas& blas, bool ta, bool tb, int m, int n, int k, const float* a, int lda,
               const float* b, int ldb, float* c, int ldc) {
  constexpr int kAlign = 16;
  const bool split_rows = m >= n;
  const int extent = split_rows ? m : n;
  const int parts = 2.0 * m * n * k < 1e6 ? 1 : std::min(team.threads(), extent / kAlign);
  if (parts <= 1) {
    blas.gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  team.run([&](int index) {
    if (index >= parts) return;
    const int units = (extent + kAlign - 1) / kAlign;
    const int begin = std::min(extent, units * index / parts * kAlign);
    const int end = std::min(extent, units * (index + 1) / parts * kAlign);
    if (begin >= end) return;
    if (split_rows) {
      const float* a_part = !ta ? a + static_cast<std::size_t>(begin) * lda : a + begin;
      blas.gemm(ta, tb, end - begin, n, k, a_part, lda, b, ldb, c + static_cast<std::size_t>(begin) * ldc, ldc);
    } else {
      const float* b_part = !tb ? b + begin : b + static_cast<std::size_t>(begin) * ldb;
      blas.gemm(ta, tb, m, end - begin, k, a, lda, b_part, ldb, c + begin, ldc);
    }
  });
}

struct Shape {
  std::string label;  // e.g. "fwd L1"
  bool ta, tb;
  int m, n, k;
  double flops() const { return 2.0 * m * n * k; }
};

struct Model {
  std::string label;
  std::vector<int> widths;
  int batch;
};

// One training step's GEMMs, in hdbench's order.
std::vector<Shape> step_shapes(const Model& model) {
  std::vector<Shape> shapes;
  const int b = model.batch;
  const std::size_t layers = model.widths.size() - 1;
  for (std::size_t l = 0; l < layers; ++l) {
    const int in = model.widths[l], out = model.widths[l + 1];
    shapes.push_back({"fwd L" + std::to_string(l + 1), false, true, b, out, in});
  }
  for (std::size_t l = layers; l-- > 0;) {
    const int in = model.widths[l], out = model.widths[l + 1];
    if (l > 0) shapes.push_back({"dX  L" + std::to_string(l + 1), false, false, b, in, out});
    shapes.push_back({"dW  L" + std::to_string(l + 1), true, false, out, in, b});
  }
  return shapes;
}

// Leading dimensions as hdbench passes them (tight, row-major).
struct Operands {
  int lda, ldb, ldc;
  std::size_t a_size, b_size, c_size;
};
Operands operands(const Shape& s) {
  const int a_rows = s.ta ? s.k : s.m, a_cols = s.ta ? s.m : s.k;
  const int b_rows = s.tb ? s.n : s.k, b_cols = s.tb ? s.k : s.n;
  return {a_cols,
          b_cols,
          s.n,
          static_cast<std::size_t>(a_rows) * a_cols,
          static_cast<std::size_t>(b_rows) * b_cols,
          static_cast<std::size_t>(s.m) * s.n};
}

struct Buffer {
  float* data = nullptr;
  explicit Buffer(std::size_t n) {
    const std::size_t bytes = std::max<std::size_t>(64, (n * sizeof(float) + 63) / 64 * 64);
    data = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (data == nullptr) die("out of memory");
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

void fill_random(float* p, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) p[i] = dist(rng);
}

// Max |C - reference| / max |reference| over a few small shapes of each transpose pair.
double verify(const Blas& blas, Team* team) {
  double worst = 0;
  const Shape shapes[] = {{"", false, true, 67, 45, 83},
                          {"", false, false, 61, 93, 38},
                          {"", true, false, 70, 57, 129},
                          {"", false, true, 257, 131, 300},
                          {"", true, false, 96, 300, 160}};
  std::uint32_t seed = 7;
  for (const Shape& s : shapes) {
    const Operands o = operands(s);
    Buffer a(o.a_size), b(o.b_size), c(o.c_size);
    fill_random(a.data, o.a_size, seed++);
    fill_random(b.data, o.b_size, seed++);
    std::fill(c.data, c.data + o.c_size, NAN);  // beta 0 must overwrite it
    if (team != nullptr)
      team_gemm(*team, blas, s.ta, s.tb, s.m, s.n, s.k, a.data, o.lda, b.data, o.ldb, c.data, o.ldc);
    else
      blas.gemm(s.ta, s.tb, s.m, s.n, s.k, a.data, o.lda, b.data, o.ldb, c.data, o.ldc);
    double max_ref = 0, max_err = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double ref = 0;
        for (int p = 0; p < s.k; ++p) {
          const double x =
              s.ta ? a.data[static_cast<std::size_t>(p) * o.lda + i] : a.data[static_cast<std::size_t>(i) * o.lda + p];
          const double y =
              s.tb ? b.data[static_cast<std::size_t>(j) * o.ldb + p] : b.data[static_cast<std::size_t>(p) * o.ldb + j];
          ref += x * y;
        }
        const double got = c.data[static_cast<std::size_t>(i) * o.ldc + j];
        max_ref = std::max(max_ref, std::fabs(ref));
        max_err = std::max(max_err, std::isfinite(got) ? std::fabs(got - ref) : INFINITY);
      }
    worst = std::max(worst, max_err / max_ref);
  }
  return worst;
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\n");
  const auto e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct Peak {
  std::string cpu, isa, clock_source;
  int cores_allowed = 0, lanes = 0;
  double ghz = 0;
};

// Theoretical fp32 peak: cores × FMA units × lanes × 2 FLOP × clock.
Peak find_peak(const Options& o) {
  Peak p;
  const std::string info = read_file("/proc/cpuinfo");
  std::istringstream lines(info);
  std::string line, flags, model_name;
  double mhz = 0;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "flags" && flags.empty()) flags = " " + value + " ";
    if (key == "model name" && model_name.empty()) model_name = value;
    if (key == "cpu MHz" && mhz == 0) mhz = std::atof(value.c_str());
  }
  p.cpu = model_name;
  if (flags.find(" avx512f ") != std::string::npos)
    p.isa = "AVX-512", p.lanes = 16;
  else if (flags.find(" avx2 ") != std::string::npos && flags.find(" fma ") != std::string::npos)
    p.isa = "AVX2+FMA", p.lanes = 8;
  else
    p.isa = "SSE", p.lanes = 4;
  // Physical cores among the CPUs this process may run on.
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  std::set<std::pair<std::string, std::string>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    cores.insert(
        {trim(read_file((base + "physical_package_id").c_str())), trim(read_file((base + "core_id").c_str()))});
  }
  p.cores_allowed = static_cast<int>(cores.size());
  if (o.clock_ghz > 0) {
    p.ghz = o.clock_ghz, p.clock_source = "--clock-ghz";
  } else if (auto at = model_name.find('@');
             at != std::string::npos && model_name.find("GHz", at) != std::string::npos) {
    p.ghz = std::atof(model_name.c_str() + at + 1), p.clock_source = "base clock in /proc/cpuinfo model name";
  } else if (double base = std::atof(trim(read_file("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency")).c_str());
             base > 0) {
    p.ghz = base / 1e6, p.clock_source = "cpufreq base_frequency";
  } else if (double max = std::atof(trim(read_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")).c_str());
             max > 0) {
    p.ghz = max / 1e6, p.clock_source = "cpufreq cpuinfo_max_freq (max turbo: peak overstated)";
  } else {
    p.ghz = mhz / 1000, p.clock_source = "/proc/cpuinfo cpu MHz (current clock)";
  }
  return p;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

// Register-only FMA loops: 12 independent accumulator chains per thread (enough to fill
// two FMA pipes of latency 4-6). Returns a value so the loop is not optimised away.
#define HD_FMA12(FMA, acc, m, a) \
  acc##0 = FMA(acc##0, m, a);    \
  acc##1 = FMA(acc##1, m, a);    \
  acc##2 = FMA(acc##2, m, a);    \
  acc##3 = FMA(acc##3, m, a);    \
  acc##4 = FMA(acc##4, m, a);    \
  acc##5 = FMA(acc##5, m, a);    \
  acc##6 = FMA(acc##6, m, a);    \
  acc##7 = FMA(acc##7, m, a);    \
  acc##8 = FMA(acc##8, m, a);    \
  acc##9 = FMA(acc##9, m, a);    \
  acc##10 = FMA(acc##10, m, a);  \
  acc##11 = FMA(acc##11, m, a);

__attribute__((target("avx512f"))) float fma_loop_avx512(long iterations) {
  __m512 v0 = _mm512_set1_ps(0.1f), v1 = _mm512_set1_ps(0.2f), v2 = _mm512_set1_ps(0.3f), v3 = _mm512_set1_ps(0.4f),
         v4 = _mm512_set1_ps(0.5f), v5 = _mm512_set1_ps(0.6f), v6 = _mm512_set1_ps(0.7f), v7 = _mm512_set1_ps(0.8f),
         v8 = _mm512_set1_ps(0.9f), v9 = _mm512_set1_ps(1.0f), v10 = _mm512_set1_ps(1.1f), v11 = _mm512_set1_ps(1.2f);
  const __m512 m = _mm512_set1_ps(0.9999999f), a = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    HD_FMA12(_mm512_fmadd_ps, v, m, a)
  }
  const __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v0, v1), _mm512_add_ps(v2, v3)),
                                 _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(v4, v5), _mm512_add_ps(v6, v7)),
                                               _mm512_add_ps(_mm512_add_ps(v8, v9), _mm512_add_ps(v10, v11))));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

__attribute__((target("avx2,fma"))) float fma_loop_avx2(long iterations) {
  __m256 v0 = _mm256_set1_ps(0.1f), v1 = _mm256_set1_ps(0.2f), v2 = _mm256_set1_ps(0.3f), v3 = _mm256_set1_ps(0.4f),
         v4 = _mm256_set1_ps(0.5f), v5 = _mm256_set1_ps(0.6f), v6 = _mm256_set1_ps(0.7f), v7 = _mm256_set1_ps(0.8f),
         v8 = _mm256_set1_ps(0.9f), v9 = _mm256_set1_ps(1.0f), v10 = _mm256_set1_ps(1.1f), v11 = _mm256_set1_ps(1.2f);
  const __m256 m = _mm256_set1_ps(0.9999999f), a = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    HD_FMA12(_mm256_fmadd_ps, v, m, a)
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(v0, v1), _mm256_add_ps(v2, v3)),
                           _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(v4, v5), _mm256_add_ps(v6, v7)),
                                         _mm256_add_ps(_mm256_add_ps(v8, v9), _mm256_add_ps(v10, v11))));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

// GFLOP/s that `threads` threads reach together in the widest FMA loop this CPU has.
double measure_fma_peak(int threads, int lanes) {
  auto loop = [lanes](long iterations) {
    return lanes == 16 ? fma_loop_avx512(iterations) : lanes == 8 ? fma_loop_avx2(iterations) : 0.0f;
  };
  if (lanes < 8) return 0;
  // Size the run to ~0.3 s on one thread, then time all threads at once, best of 3.
  long iterations = 1 << 20;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float sink = loop(iterations);
    (void)sink;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > 0.1) break;
    iterations *= 2;
  }
  iterations *= 3;
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::barrier<> start(threads + 1);
    std::vector<std::thread> pool;
    std::atomic<float> sink{0};
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        start.arrive_and_wait();
        sink = sink + loop(iterations);
      });
    start.arrive_and_wait();
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, static_cast<double>(iterations) * 12 * lanes * 2 * threads / s / 1e9);
  }
  return best;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value for " + flag);
      return argv[++i];
    };
    if (flag == "--lib")
      o.lib = value();
    else if (flag == "--name")
      o.name = value();
    else if (flag == "--api") {
      const std::string v = value();
      o.api = v == "cblas"     ? Api::cblas
              : v == "cblas64" ? Api::cblas64
              : v == "dnnl"    ? Api::dnnl
                               : (die("bad --api " + v), Api::cblas);
    } else if (flag == "--symbol-prefix")
      o.prefix = value();
    else if (flag == "--symbol-suffix")
      o.suffix = value();
    else if (flag == "--mode")
      o.mode = value();
    else if (flag == "--threads")
      o.threads = std::atoi(value().c_str());
    else if (flag == "--budget-s")
      o.budget_s = std::atof(value().c_str());
    else if (flag == "--max-repeats")
      o.max_repeats = std::atoi(value().c_str());
    else if (flag == "--clock-ghz")
      o.clock_ghz = std::atof(value().c_str());
    else if (flag == "--fma-units")
      o.fma_units = std::atoi(value().c_str());
    else if (flag == "--json")
      o.json = value();
    else if (flag == "--fma-peak")
      o.fma_peak = true;
    else
      die("unknown flag " + flag + " (see the comment at the top of sgemm_probe.cpp)");
  }
  if (o.lib.empty() && !o.fma_peak) die("--lib PATH is required");
  if (o.mode != "lib" && o.mode != "team") die("--mode is lib or team");
  if (o.threads < 1) o.threads = 1;
  if (o.name.empty()) o.name = o.lib;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.fma_peak) {
    const Peak peak = find_peak(o);
    const int cores = std::min(o.threads, std::max(1, peak.cores_allowed));
    const double theoretical = cores * o.fma_units * peak.lanes * 2.0 * peak.ghz;
    const double measured = measure_fma_peak(o.threads, peak.lanes);
    std::printf(
        "FMA_PEAK theoretical %.0f GFLOP/s = %d cores x %d FMA units x %d lanes x 2 x %.3f GHz (%s); "
        "measured %.0f GFLOP/s in a %s FMA loop on %d threads = %.0f%% of it (as if %.2f GHz)\n",
        theoretical, cores, o.fma_units, peak.lanes, peak.ghz, peak.clock_source.c_str(), measured, peak.isa.c_str(),
        o.threads, 100 * measured / theoretical, measured / theoretical * peak.ghz);
    return 0;
  }
  const Blas blas = load(o);
  std::unique_ptr<Team> team;
  if (o.mode == "team") team = std::make_unique<Team>(o.threads);

  const Peak peak = find_peak(o);
  const int peak_cores = std::min(o.threads, std::max(1, peak.cores_allowed));
  const double peak_core_gflops = o.fma_units * peak.lanes * 2.0 * peak.ghz;
  const double peak_gflops = peak_cores * peak_core_gflops;
  const double error = verify(blas, team.get());

  std::printf("candidate  %s  (mode %s, %d threads)\n", o.name.c_str(), o.mode.c_str(), o.threads);
  std::printf("library    %s  [%s]\n", o.lib.c_str(), blas.info.c_str());
  std::printf("cpu        %s; %s; %d physical cores allowed\n", peak.cpu.c_str(), peak.isa.c_str(), peak.cores_allowed);
  std::printf("peak fp32  %.0f GFLOP/s = %d cores x %d FMA units x %d lanes x 2 x %.3f GHz (%s)\n", peak_gflops,
              peak_cores, o.fma_units, peak.lanes, peak.ghz, peak.clock_source.c_str());
  std::printf("verify     max rel error %.2e against a double-precision naive GEMM (5 small shapes, 3 transposes)%s\n",
              error, error < 1e-4 ? "" : "  <-- WRONG");

  const std::vector<Model> models = {{"784x4096x4096x10 b1024", {784, 4096, 4096, 10}, 1024},
                                     {"784x4096x4096x10 b128", {784, 4096, 4096, 10}, 128},
                                     {"784x32x10 b128", {784, 32, 10}, 128}};
  std::ostringstream json;
  json << "{\"candidate\":\"" << json_escape(o.name) << "\",\"library\":\"" << json_escape(o.lib)
       << "\",\"library_info\":\"" << json_escape(blas.info) << "\",\"mode\":\"" << o.mode
       << "\",\"threads\":" << o.threads << ",\"cpu\":\"" << json_escape(peak.cpu) << "\",\"isa\":\"" << peak.isa
       << "\",\"peak_gflops\":" << peak_gflops << ",\"peak_cores\":" << peak_cores << ",\"fma_units\":" << o.fma_units
       << ",\"lanes\":" << peak.lanes << ",\"clock_ghz\":" << peak.ghz << ",\"clock_source\":\""
       << json_escape(peak.clock_source) << "\",\"verify_max_rel_error\":" << error << ",\"models\":[";
  std::string summary;
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    const Model& model = models[mi];
    std::printf("\n%-24s %-6s %5s %5s %5s %7s %10s %9s %7s %4s\n", model.label.c_str(), "gemm", "M", "N", "K", "GFLOP",
                "median ms", "GFLOP/s", "%peak", "reps");
    double step_s = 0, step_flops = 0;
    json << (mi ? "," : "") << "{\"model\":\"" << model.label << "\",\"gemms\":[";
    const auto shapes = step_shapes(model);
    for (std::size_t si = 0; si < shapes.size(); ++si) {
      const Shape& s = shapes[si];
      const Operands ops = operands(s);
      Buffer a(ops.a_size), b(ops.b_size), c(ops.c_size);
      fill_random(a.data, ops.a_size, 11 + si);
      fill_random(b.data, ops.b_size, 101 + si);
      auto call = [&] {
        if (team)
          team_gemm(*team, blas, s.ta, s.tb, s.m, s.n, s.k, a.data, ops.lda, b.data, ops.ldb, c.data, ops.ldc);
        else
          blas.gemm(s.ta, s.tb, s.m, s.n, s.k, a.data, ops.lda, b.data, ops.ldb, c.data, ops.ldc);
      };
      auto timed = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        call();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      };
      timed();  // warm-up: thread start, page faults, kernel selection
      const double first = timed();
      const int repeats = std::clamp(static_cast<int>(o.budget_s / std::max(first, 1e-7)), 3, o.max_repeats);
      std::vector<double> times{first};
      for (int r = 1; r < repeats; ++r) times.push_back(timed());
      std::sort(times.begin(), times.end());
      const double median =
          times.size() % 2 ? times[times.size() / 2] : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
      const double gflops = s.flops() / median / 1e9;
      step_s += median;
      step_flops += s.flops();
      std::printf("%-24s %-6s %5d %5d %5d %7.3f %10.3f %9.1f %6.1f%% %4d\n",
                  (std::string(s.ta ? "T" : "N") + (s.tb ? "T" : "N")).c_str(), s.label.c_str(), s.m, s.n, s.k,
                  s.flops() / 1e9, median * 1e3, gflops, 100 * gflops / peak_gflops, repeats);
      json << (si ? "," : "") << "{\"gemm\":\"" << s.label << "\",\"trans\":\"" << (s.ta ? "T" : "N")
           << (s.tb ? "T" : "N") << "\",\"m\":" << s.m << ",\"n\":" << s.n << ",\"k\":" << s.k
           << ",\"flop\":" << s.flops() << ",\"median_s\":" << median << ",\"min_s\":" << times.front()
           << ",\"max_s\":" << times.back() << ",\"repeats\":" << repeats << ",\"gflops\":" << gflops << "}";
    }
    const double step_gflops = step_flops / step_s / 1e9;
    std::printf("%-24s %-6s %17s %7.3f %10.3f %9.1f %6.1f%%\n", "step (sum of medians)", "", "", step_flops / 1e9,
                step_s * 1e3, step_gflops, 100 * step_gflops / peak_gflops);
    json << "],\"step_flop\":" << step_flops << ",\"step_s\":" << step_s << ",\"step_gflops\":" << step_gflops
         << ",\"step_fraction_of_peak\":" << step_gflops / peak_gflops << "}";
    char cell[96];
    std::snprintf(cell, sizeof cell, " | %9.3f %7.1f %5.1f%%", step_s * 1e3, step_gflops,
                  100 * step_gflops / peak_gflops);
    summary += cell;
  }
  json << "]}\n";
  // One line for run.sh's table: name, mode, threads, then per model: step ms, GFLOP/s, % of peak.
  std::printf("\nSUMMARY %-28s | %-4s %3d%s | %.1e | %.0f\n", o.name.c_str(), o.mode.c_str(), o.threads,
              summary.c_str(), error, peak_gflops);
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << json.str();
    if (!out) die("cannot write " + o.json);
  }
  return error < 1e-4 ? 0 : 1;
}
