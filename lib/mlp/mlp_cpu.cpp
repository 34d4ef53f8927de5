#include "mlp/mlp_cpu.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "core/nvtx.hpp"
#include "core/thread_team.hpp"
#include "mlp/mlp_description.hpp"
#include "mlp/narrow_gemm.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

// The element-wise passes are compiled for AVX-512, AVX2 and baseline x86-64, picked
// at load time: the binary stays portable and still uses the host's vector width
// (OpenBLAS dispatches its own kernels the same way).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HDBENCH_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HDBENCH_VECTOR_CLONES
#endif

namespace hdbench {
namespace {

// Below this many elements one thread does an element-wise pass alone: waking the
// team costs a few microseconds, more than the pass itself.
constexpr std::size_t kTeamMinElements = std::size_t{1} << 15;
// The softmax cross-entropy costs ~4 ns a logit (a row's max, argmax, sums and log
// beside the exp), ~20x an element of bias + ReLU: it is worth the team from 4096
// logits on (784x32x10 at batch 1024 has 10240: ~40 µs alone, on one thread while
// the others wait, as the 16-vCPU host's sweep showed it flatten from 8 threads on).
constexpr std::size_t kTeamMinLogits = std::size_t{1} << 12;

// Parts an element-wise pass splits into per team thread: with two, a thread the host
// takes away mid-pass holds up half a share while the others finish the rest
// (core/thread_team.hpp). A GEMM keeps one part per thread: halving its blocks cost
// 3-13% on the 2-core host with every core free (784x1024x1024x10, batch 1024), and a
// worker that has not started yet still takes nothing: the others do its part.
constexpr int kPartsPerThread = 2;
int parts_for(const ThreadTeam& team) { return team.threads() == 1 ? 1 : kPartsPerThread * team.threads(); }

// Flush-to-zero and denormals-are-zero while a step's arithmetic runs on this
// thread, restored after (what torch.set_flush_denormal(True) does for PyTorch). A
// momentum buffer decaying towards zero, or the gradients of a well-trained batch,
// pass through the denormal range, where each operation costs ~100× more: measured
// here, the optimizer pass of 784x32x10 took 23 µs instead of 4 µs. Values below
// 1.2e-38 carry nothing a training step needs.
class DenormalsFlushed {
 public:
#if defined(__x86_64__) || defined(__i386__)
  DenormalsFlushed() noexcept : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero); }
  ~DenormalsFlushed() { _mm_setcsr(saved_); }

 private:
  static constexpr unsigned kFlushToZero = 0x8000;
  static constexpr unsigned kDenormalsAreZero = 0x0040;
  unsigned saved_;
#endif
};

// ---- the optional profile (CpuMlp::profile_into) ----

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The profile and phase of the step the calling thread runs, while it is profiled.
struct ActivePhase {
  CpuStepProfile* profile = nullptr;
  int phase = 0;
};
thread_local ActivePhase tls_phase;

// On the calling thread: what follows, up to the scope's end, is `phase`.
class PhaseScope {
 public:
  PhaseScope(CpuStepProfile* profile, CpuStepPhase phase) noexcept : saved_(tls_phase) {
    if (profile == nullptr) return;
    tls_phase = {profile, static_cast<int>(phase)};
    start_ = Clock::now();
  }
  ~PhaseScope() {
    if (tls_phase.profile != nullptr) tls_phase.profile->wall_seconds[tls_phase.phase] += seconds_since(start_);
    tls_phase = saved_;
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  ActivePhase saved_;
  Clock::time_point start_{};
};

// team.run of `parts` parts with the step's floating-point mode on every thread; one
// part runs on the calling thread alone. Profiled, each part's time is its thread's.
template <typename Body>
void run_flushed(ThreadTeam& team, int parts, Body&& body) {
  const ActivePhase active = tls_phase;
  if (active.profile == nullptr) {
    team.run(parts, [&](int index) {
      const DenormalsFlushed flushed;
      body(index);
    });
    return;
  }
  CpuStepProfile& profile = *active.profile;
  std::fill(profile.run_busy.begin(), profile.run_busy.end(), 0.0);
  const Clock::time_point run_start = Clock::now();
  team.run(parts, [&](int index) {
    const DenormalsFlushed flushed;
    const Clock::time_point start = Clock::now();
    body(index);
    profile.run_busy[static_cast<std::size_t>(team.thread_index())] += seconds_since(start);
  });
  const double wall = seconds_since(run_start);
  double busiest = 0.0;
  for (std::size_t t = 0; t < profile.run_busy.size(); ++t) {
    profile.busy_seconds[t][active.phase] += profile.run_busy[t];
    busiest = std::max(busiest, profile.run_busy[t]);
  }
  if (parts > 1 && team.threads() > 1) {
    profile.handover_seconds[active.phase] += std::max(0.0, wall - busiest);
    ++profile.team_runs[active.phase];
  }
}

// Work of the current phase on the calling thread alone.
template <typename Body>
void run_alone(ThreadTeam& team, Body&& body) {
  run_flushed(team, 1, [&](int) { body(); });
}

struct Rows {
  std::size_t begin = 0;
  std::size_t end = 0;
};

Rows share_of(std::size_t rows, int parts, int index) {
  const std::size_t base = rows / static_cast<std::size_t>(parts);
  const std::size_t extra = rows % static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  const std::size_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

// Hidden layer, in place: z = max(z + b, 0).
HDBENCH_VECTOR_CLONES
void bias_relu_rows(float* z, const float* b, std::size_t cols, Rows rows) {
  for (std::size_t r = rows.begin; r < rows.end; ++r) {
    float* row = z + r * cols;
    for (std::size_t c = 0; c < cols; ++c) row[c] = std::max(row[c] + b[c], 0.0f);
  }
}

HDBENCH_VECTOR_CLONES
void bias_rows(float* z, const float* b, std::size_t cols, Rows rows) {
  for (std::size_t r = rows.begin; r < rows.end; ++r) {
    float* row = z + r * cols;
    for (std::size_t c = 0; c < cols; ++c) row[c] += b[c];
  }
}

// Backward through a hidden layer's ReLU, in place: g = g · (a > 0), where a is the
// layer's output; the column sums of the result (the bias gradient) go to `sums`.
HDBENCH_VECTOR_CLONES
void relu_grad_bias_grad_rows(float* g, const float* a, std::size_t cols, Rows rows, float* sums) {
  std::fill(sums, sums + cols, 0.0f);
  for (std::size_t r = rows.begin; r < rows.end; ++r) {
    float* grow = g + r * cols;
    const float* arow = a + r * cols;
    for (std::size_t c = 0; c < cols; ++c) {
      const float v = arow[c] > 0.0f ? grow[c] : 0.0f;
      grow[c] = v;
      sums[c] += v;
    }
  }
}

// e^x in float for x <= 0, within 2 ulp, written so that a loop of it vectorizes (no
// libm call): x = n·ln2 + r with |r| <= ln2/2, e^r by its degree-7 Taylor polynomial
// (truncation error below 1e-8 relative), 2^n built in the exponent bits. Below -87.3 (e^x under
// the smallest normal float) it returns 0, as the step's flush-to-zero would. The
// libm exp in double this replaces took 130 µs of a 1.7 ms step of 784x32x10 at batch
// 1024 on one core here, on the calling thread alone.
inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln 2 = kLn2Hi + kLn2Lo, kLn2Hi exact in 9 bits: n·kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5·2^23: adding it rounds to a whole number
  constexpr float kLowest = -87.3f;
  const float clamped = x < kLowest ? kLowest : x;
  const float n = (clamped * kLog2e + kRound) - kRound;
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const auto bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(n) + 127) << 23;
  const float e = p * std::bit_cast<float>(bits);
  return x < kLowest ? 0.0f : e;
}

// exp_nonpositive over a whole range: one vector loop.
HDBENCH_VECTOR_CLONES
void exp_nonpositive_in_place(float* x, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) x[i] = exp_nonpositive(x[i]);
}

// Softmax cross-entropy over rows of logits, with a stable log-sum-exp, in three
// passes over the share: each row shifted by its largest logit (into `work`, [rows ×
// classes] like the logits), e^ of the whole share in one vector loop, then each row's
// loss and, with `grad`, dLoss/dlogits = (softmax - onehot) / batch, written over
// `work` (then `grad` == `work`), and the column sums of that (the last layer's bias
// gradient) to `sums`. Argmax ties go to the lowest class, as torch.argmax.
// Returns this share's summed loss (not yet the mean) and correct count.
StepResult softmax_cross_entropy_rows(const float* logits, const std::int32_t* labels, std::size_t classes,
                                      std::size_t batch, Rows rows, float* work, bool grad, float* sums) {
  StepResult share;
  if (rows.begin >= rows.end) return share;
  for (std::size_t r = rows.begin; r < rows.end; ++r) {
    const float* z = logits + r * classes;
    float top = z[0];
    for (std::size_t c = 1; c < classes; ++c) top = std::max(top, z[c]);
    float* w = work + r * classes;
    for (std::size_t c = 0; c < classes; ++c) w[c] = z[c] - top;
  }
  exp_nonpositive_in_place(work + rows.begin * classes, (rows.end - rows.begin) * classes);
  if (grad) std::fill(sums, sums + classes, 0.0f);
  const double inv_batch = 1.0 / static_cast<double>(batch);
  for (std::size_t r = rows.begin; r < rows.end; ++r) {
    const float* z = logits + r * classes;
    const auto label = static_cast<std::size_t>(labels[r]);
    std::size_t best = 0;
    for (std::size_t c = 1; c < classes; ++c)
      if (z[c] > z[best]) best = c;
    float* e = work + r * classes;
    // The other classes' share, summed apart from the label's: p - 1 for the label is
    // -(others / total), without the cancellation of a confident p near 1.
    float others = 0.0f;
    for (std::size_t c = 0; c < classes; ++c) others += c == label ? 0.0f : e[c];
    const double total = static_cast<double>(others) + static_cast<double>(e[label]);
    share.loss += std::log(total) - static_cast<double>(z[label] - z[best]);
    share.correct += best == label ? 1 : 0;
    if (!grad) continue;
    const auto scale = static_cast<float>(inv_batch / total);
    for (std::size_t c = 0; c < classes; ++c) {
      e[c] = c == label ? -others * scale : e[c] * scale;
      sums[c] += e[c];
    }
  }
  return share;
}

HDBENCH_VECTOR_CLONES
void sgd_momentum(float* p, const float* g, float* v, std::size_t begin, std::size_t end, float lr, float momentum) {
  for (std::size_t i = begin; i < end; ++i) {
    v[i] = momentum * v[i] + g[i];
    p[i] -= lr * v[i];
  }
}

struct AdamStep {
  float beta1, beta2, epsilon, step_size, inv_sqrt_bias2;
};

HDBENCH_VECTOR_CLONES
void adam(float* p, const float* g, float* m, float* v, std::size_t begin, std::size_t end, AdamStep s) {
  for (std::size_t i = begin; i < end; ++i) {
    m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * g[i];
    v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * g[i] * g[i];
    p[i] -= s.step_size * m[i] / (std::sqrt(v[i]) * s.inv_sqrt_bias2 + s.epsilon);
  }
}

// One optimizer update over index ranges of the flat parameter array: the whole array
// (apply_optimizer), or one block of a weight matrix right after the thread that
// computed its gradient wrote it (step(), while the block is still in that core's
// cache: reading another core's freshly written gradients cost 40 µs of a 150 µs
// step of 784x32x10 here).
struct Update {
  OptimizerConfig config;
  AdamStep adam_step{};
  float* p = nullptr;
  const float* g = nullptr;
  float* m = nullptr;
  float* v = nullptr;

  void apply(std::size_t begin, std::size_t end) const {
    if (config.kind == OptimizerKind::sgd) {
      sgd_momentum(p, g, m, begin, end, config.learning_rate, config.momentum);
    } else {
      adam(p, g, m, v, begin, end, adam_step);
    }
  }
};

Update make_update(const OptimizerConfig& o, std::size_t step, float* p, const float* g, float* m, float* v) {
  Update u{o, {}, p, g, m, v};
  if (o.kind == OptimizerKind::adam) {
    const auto t = static_cast<double>(step);
    u.adam_step = {o.beta1, o.beta2, o.epsilon,
                   static_cast<float>(o.learning_rate / (1.0 - std::pow(static_cast<double>(o.beta1), t))),
                   static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), t)))};
  }
  return u;
}

// What a thread does with the block of C it has just computed: rows [row_begin,
// row_end) × columns [col_begin, col_end).
using BlockEpilogue = std::function<void(int row_begin, int row_end, int col_begin, int col_end)>;

// Each part's column sums start this many floats after the last part's, at least: a
// whole cache line, so that two threads adding to their sums row after row never write
// one line (10 classes' sums 40 bytes apart doubled the loss pass's time over two threads).
constexpr std::size_t kSumsAlignment = 16;
std::size_t sums_stride(std::size_t cols) { return (cols + kSumsAlignment - 1) / kSumsAlignment * kSumsAlignment; }

// Adds each part's column sums (parts rows of cols, sums_stride(cols) apart) into one
// row at `out`.
void reduce_sums(const float* partial, int parts, std::size_t cols, float* out) {
  const std::size_t stride = sums_stride(cols);
  std::copy(partial, partial + cols, out);
  for (int t = 1; t < parts; ++t)
    for (std::size_t c = 0; c < cols; ++c) out[c] += partial[static_cast<std::size_t>(t) * stride + c];
}

// A GEMM of C[m×n] with a reduction of k, split over the team: each thread computes
// one block of C's rows (or of its columns, when C is wider than tall) single-threaded,
// block(row_begin, row_end, col_begin, col_end), then its epilogue. OpenBLAS's own
// threading hands a training step's small GEMMs (128×32×784) to one thread or loses
// the gain to its start-up, and our team is already awake for the element-wise passes.
// Below ~1 MFLOP one thread does it all: waking the team would cost more. A `block`
// that computes whole rows only asks for rows_only: it is then split by rows whatever
// C's shape.
template <typename Block>
void split_gemm(ThreadTeam& team, int m, int n, int k, Block&& block, const BlockEpilogue* epilogue,
                bool rows_only = false) {
  constexpr double kTeamMinFlops = 1e6;
  constexpr int kBlockAlignment = 16;  // whole cache lines of C per thread
  const bool split_rows = rows_only || m >= n;
  const int extent = split_rows ? m : n;
  const int parts = 2.0 * m * n * k < kTeamMinFlops ? 1 : std::min(team.threads(), extent / kBlockAlignment);
  if (parts <= 1) {
    run_alone(team, [&] {
      block(0, m, 0, n);
      if (epilogue != nullptr) (*epilogue)(0, m, 0, n);
    });
    return;
  }
  run_flushed(team, parts, [&](int index) {
    // Near-equal blocks in units of kBlockAlignment rows or columns.
    const int units = (extent + kBlockAlignment - 1) / kBlockAlignment;
    const int begin = std::min(extent, units * index / parts * kBlockAlignment);
    const int end = std::min(extent, units * (index + 1) / parts * kBlockAlignment);
    if (begin >= end) return;
    if (split_rows) {
      block(begin, end, 0, n);
      if (epilogue != nullptr) (*epilogue)(begin, end, 0, n);
    } else {
      block(0, m, begin, end);
      if (epilogue != nullptr) (*epilogue)(0, m, begin, end);
    }
  });
}

// A row-major C[m×n] = op(A)[m×k] · op(B)[k×n] through single-threaded OpenBLAS on each
// thread's block.
void team_sgemm(ThreadTeam& team, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const float* a, int lda,
                const float* b, int ldb, float* c, int ldc, const BlockEpilogue* epilogue = nullptr) {
  split_gemm(
      team, m, n, k,
      [&](int row_begin, int row_end, int col_begin, int col_end) {
        // Rows of op(A): rows of a plain A, columns of a transposed one; columns of op(B):
        // columns of a plain B, rows of a transposed one.
        const auto rb = static_cast<std::size_t>(row_begin);
        const auto cb = static_cast<std::size_t>(col_begin);
        const float* a_part = ta == CblasNoTrans ? a + rb * static_cast<std::size_t>(lda) : a + rb;
        const float* b_part = tb == CblasNoTrans ? b + cb : b + cb * static_cast<std::size_t>(ldb);
        cblas_sgemm(CblasRowMajor, ta, tb, row_end - row_begin, col_end - col_begin, k, 1.0f, a_part, lda, b_part, ldb,
                    0.0f, c + rb * static_cast<std::size_t>(ldc) + cb, ldc);
      },
      epilogue);
}

}  // namespace

void set_blas_threads(int threads) {
  // openblas_set_num_threads is global and not free; skip it when nothing changes.
  static std::atomic<int> current{0};
  if (current.exchange(threads) != threads) openblas_set_num_threads(threads);
}

void cpu_sgemm(const float* a, const float* b, float* c, int m, int n, int k) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

CpuMlp::CpuMlp(const MlpShape& shape, const OptimizerConfig& optimizer, std::size_t max_batch, int threads,
               std::span<const float> parameters)
    : shape_(shape),
      layout_(make_parameter_layout(shape)),
      optimizer_(optimizer),
      max_batch_(max_batch),
      threads_(threads) {
  if (shape.layers() == 0) throw MlpConfigError("an MLP needs at least one layer");
  if (max_batch == 0) throw MlpConfigError("the largest batch must be at least 1");
  if (threads < 1) throw MlpConfigError(fmt::format("the CPU step needs at least 1 thread, not {}", threads));
  check_parameter_count(shape, layout_, parameters.size());
  parameters_.assign(parameters.begin(), parameters.end());
  gradients_.assign(layout_.total, 0.0f);
  first_moment_.assign(layout_.total, 0.0f);
  if (optimizer.kind == OptimizerKind::adam) second_moment_.assign(layout_.total, 0.0f);
  for (std::size_t l = 0; l < shape.layers(); ++l)
    activations_.emplace_back(max_batch * static_cast<std::size_t>(shape.fan_out(l)), 0.0f);
  grad_a_.assign(max_batch * static_cast<std::size_t>(shape.widest()), 0.0f);
  grad_b_.assign(grad_a_.size(), 0.0f);
  // Layers with few outputs and enough inputs take the narrow kernels (narrow_gemm.hpp),
  // with their weights also kept packed; the others keep OpenBLAS.
  packed_weights_.resize(shape.layers());
  for (std::size_t l = 0; l < shape.layers(); ++l) {
    if (narrow_gemm_available() && shape.fan_out(l) <= kNarrowMaxOutputs && shape.fan_in(l) >= kNarrowMinInputs)
      packed_weights_[l].assign(static_cast<std::size_t>(shape.fan_in(l)) * kNarrowPackedWidth, 0.0f);
  }
  pack_weights();
  set_threads(threads);
}

std::string_view to_string(CpuStepPhase phase) noexcept {
  switch (phase) {
    case CpuStepPhase::forward_gemm:
      return "forward_gemm";
    case CpuStepPhase::forward_elementwise:
      return "forward_elementwise";
    case CpuStepPhase::loss:
      return "loss";
    case CpuStepPhase::backward_input_gemm:
      return "backward_input_gemm";
    case CpuStepPhase::backward_elementwise:
      return "backward_elementwise";
    case CpuStepPhase::weight_gradient_gemm:
      return "weight_gradient_gemm";
    case CpuStepPhase::optimizer:
      return "optimizer";
  }
  return "?";
}

void CpuStepProfile::reset(int threads) {
  *this = CpuStepProfile{};
  busy_seconds.assign(static_cast<std::size_t>(std::max(threads, 1)), {});
  run_busy.assign(busy_seconds.size(), 0.0);
}

void CpuMlp::profile_into(CpuStepProfile* profile) {
  profile_ = profile;
  if (profile_ != nullptr) profile_->reset(threads_);
}

void CpuMlp::set_threads(int threads) {
  if (threads < 1) throw MlpConfigError(fmt::format("the CPU step needs at least 1 thread, not {}", threads));
  if (team_ && threads == threads_) return;
  threads_ = threads;
  const auto parts = static_cast<std::size_t>(kPartsPerThread * threads);  // the most a pass splits into
  partial_sums_.assign(parts * sums_stride(static_cast<std::size_t>(shape_.widest())), 0.0f);
  loss_shares_.assign(parts, StepResult{});
  team_.reset();  // its threads end before the new team's start
  team_ = std::make_unique<ThreadTeam>(threads, "mlp/cpu");
  if (profile_ != nullptr) profile_->reset(threads);
}

CpuMlp::~CpuMlp() = default;

std::span<const float> CpuMlp::logits() const noexcept {
  return {activations_.back().data(), last_batch_ * static_cast<std::size_t>(shape_.classes())};
}

void CpuMlp::check_batch(const std::int32_t* labels, std::size_t batch) const {
  if (batch == 0 || batch > max_batch_)
    throw std::invalid_argument(fmt::format("batch of {} samples: the model was built for 1..{}", batch, max_batch_));
  for (std::size_t i = 0; i < batch; ++i)
    if (labels[i] < 0 || labels[i] >= shape_.classes())
      throw std::invalid_argument(
          fmt::format("label {} of sample {} is outside 0..{}", labels[i], i, shape_.classes() - 1));
}

template <typename Body>
static void for_row_shares(ThreadTeam& team, std::size_t rows, std::size_t elements, Body body,
                           std::size_t team_min_elements = kTeamMinElements) {
  if (elements < team_min_elements || team.threads() == 1 || rows < 2) {
    run_alone(team, [&] { body(0, 1, Rows{0, rows}); });
    return;
  }
  const int parts = static_cast<int>(std::min<std::size_t>(rows, static_cast<std::size_t>(parts_for(team))));
  run_flushed(team, parts, [&](int index) { body(index, parts, share_of(rows, parts, index)); });
}

StepResult CpuMlp::forward(const float* images, const std::int32_t* labels, std::size_t batch, bool keep_gradient) {
  check_batch(labels, batch);
  set_blas_threads(1);  // the team splits each GEMM; OpenBLAS runs inside each share
  last_batch_ = batch;
  const auto b = static_cast<int>(batch);
  const float* input = images;
  for (std::size_t l = 0; l < shape_.layers(); ++l) {
    const int in = shape_.fan_in(l);
    const int out = shape_.fan_out(l);
    float* z = activations_[l].data();
    const float* bias = parameters_.data() + layout_.layers[l].bias;
    {
      const PhaseScope phase(profile_, CpuStepPhase::forward_gemm);
      if (narrow_layer(l)) {
        const float* packed = packed_weights_[l].data();
        split_gemm(
            *team_, b, out, in,
            [&](int row_begin, int row_end, int, int) {
              narrow_forward(row_end - row_begin, out, in, input + static_cast<std::size_t>(row_begin) * in, in, packed,
                             z + static_cast<std::size_t>(row_begin) * out, out);
            },
            nullptr, /*rows_only=*/true);
      } else {
        team_sgemm(*team_, CblasNoTrans, CblasTrans, b, out, in, input, in,
                   parameters_.data() + layout_.layers[l].weight, in, z, out);
      }
    }
    const bool hidden = l + 1 < shape_.layers();
    const PhaseScope phase(profile_, CpuStepPhase::forward_elementwise);
    for_row_shares(*team_, batch, batch * static_cast<std::size_t>(out), [&](int, int, Rows rows) {
      if (hidden) {
        bias_relu_rows(z, bias, static_cast<std::size_t>(out), rows);
      } else {
        bias_rows(z, bias, static_cast<std::size_t>(out), rows);
      }
    });
    input = z;
  }

  const PhaseScope phase(profile_, CpuStepPhase::loss);
  const auto classes = static_cast<std::size_t>(shape_.classes());
  int parts_used = 1;
  for_row_shares(
      *team_, batch, batch * classes,
      [&](int index, int parts, Rows rows) {
        if (index == 0) parts_used = parts;
        float* sums = partial_sums_.data() + static_cast<std::size_t>(index) * sums_stride(classes);
        // grad_a_ is the shifted logits' scratch too: a forward pass alone needs no gradient.
        loss_shares_[static_cast<std::size_t>(index)] = softmax_cross_entropy_rows(
            activations_.back().data(), labels, classes, batch, rows, grad_a_.data(), keep_gradient, sums);
      },
      kTeamMinLogits);
  if (keep_gradient)
    reduce_sums(partial_sums_.data(), parts_used, classes, gradients_.data() + layout_.layers.back().bias);
  StepResult result;
  for (int t = 0; t < parts_used; ++t) {
    result.loss += loss_shares_[static_cast<std::size_t>(t)].loss;
    result.correct += loss_shares_[static_cast<std::size_t>(t)].correct;
  }
  result.loss /= static_cast<double>(batch);
  return result;
}

void CpuMlp::backward(const float* images, std::size_t batch, const void* fused_update) {
  const auto* update = static_cast<const Update*>(fused_update);
  const auto b = static_cast<int>(batch);
  float* grad_out = grad_a_.data();  // dLoss/d(this layer's pre-activation output)
  float* grad_in = grad_b_.data();
  for (std::size_t l = shape_.layers(); l-- > 0;) {
    const int in = shape_.fan_in(l);
    const int out = shape_.fan_out(l);
    const LayerOffsets offsets = layout_.layers[l];
    const float* input = l == 0 ? images : activations_[l - 1].data();
    // The input gradient first: it needs this layer's weights before a fused update
    // changes them. The images need none.
    if (l > 0) {
      {
        const PhaseScope phase(profile_, CpuStepPhase::backward_input_gemm);
        team_sgemm(*team_, CblasNoTrans, CblasNoTrans, b, in, out, grad_out, out, parameters_.data() + offsets.weight,
                   in, grad_in, in);
      }
      const PhaseScope phase(profile_, CpuStepPhase::backward_elementwise);
      int parts_used = 1;
      const auto cols = static_cast<std::size_t>(in);
      for_row_shares(*team_, batch, batch * cols, [&](int index, int parts, Rows rows) {
        if (index == 0) parts_used = parts;
        relu_grad_bias_grad_rows(grad_in, input, cols, rows,
                                 partial_sums_.data() + static_cast<std::size_t>(index) * sums_stride(cols));
      });
      reduce_sums(partial_sums_.data(), parts_used, cols, gradients_.data() + layout_.layers[l - 1].bias);
    }
    const bool narrow = narrow_layer(l);
    const float* weights = parameters_.data() + offsets.weight;
    const BlockEpilogue update_block = [&](int row_begin, int row_end, int col_begin, int col_end) {
      const Clock::time_point start = profile_ != nullptr ? Clock::now() : Clock::time_point{};
      for (int r = row_begin; r < row_end; ++r) {
        const std::size_t first = offsets.weight + static_cast<std::size_t>(r) * in + col_begin;
        update->apply(first, first + static_cast<std::size_t>(col_end - col_begin));
      }
      // A narrow layer's blocks are whole columns (it is wider than tall): their packed
      // rows are this thread's to renew, while the block is in its cache.
      if (narrow) pack_narrow_weights(weights, out, in, col_begin, col_end, packed_weights_[l].data());
      if (profile_ != nullptr) {  // this thread's time in the update: the optimizer's, not the GEMM's
        const double spent = seconds_since(start);
        auto& busy = profile_->busy_seconds[static_cast<std::size_t>(team_->thread_index())];
        busy[static_cast<int>(CpuStepPhase::optimizer)] += spent;
        busy[static_cast<int>(CpuStepPhase::weight_gradient_gemm)] -= spent;
      }
    };
    {
      const PhaseScope phase(profile_, CpuStepPhase::weight_gradient_gemm);
      float* weight_gradient = gradients_.data() + offsets.weight;
      const BlockEpilogue* epilogue = update != nullptr ? &update_block : nullptr;
      if (narrow) {
        split_gemm(
            *team_, out, in, b,
            [&](int, int, int col_begin, int col_end) {
              narrow_weight_gradient(out, col_end - col_begin, b, grad_out, out, input + col_begin, in,
                                     weight_gradient + col_begin, in);
            },
            epilogue);
      } else {
        team_sgemm(*team_, CblasTrans, CblasNoTrans, out, in, b, grad_out, out, input, in, weight_gradient, in,
                   epilogue);
      }
    }
    // This layer's bias gradient is final by now (the softmax or the layer above wrote it).
    if (update != nullptr) {
      const PhaseScope phase(profile_, CpuStepPhase::optimizer);
      run_alone(*team_, [&] { update->apply(offsets.bias, offsets.bias + static_cast<std::size_t>(out)); });
    }
    std::swap(grad_out, grad_in);
  }
}

StepResult CpuMlp::compute_gradients(const float* images, const std::int32_t* labels, std::size_t batch) {
  const DenormalsFlushed flushed;
  const StepResult result = forward(images, labels, batch, true);
  backward(images, batch, nullptr);
  return result;
}

StepResult CpuMlp::evaluate(const float* images, const std::int32_t* labels, std::size_t batch) {
  const DenormalsFlushed flushed;
  return forward(images, labels, batch, false);
}

void CpuMlp::apply_optimizer() {
  const DenormalsFlushed flushed;
  const Update update = make_update(optimizer_, ++steps_, parameters_.data(), gradients_.data(), first_moment_.data(),
                                    second_moment_.data());
  for_row_shares(*team_, layout_.total, layout_.total,
                 [&](int, int, Rows share) { update.apply(share.begin, share.end); });
  pack_weights();
}

bool CpuMlp::narrow_layer(std::size_t layer) const noexcept {
  return layer < packed_weights_.size() && !packed_weights_[layer].empty();
}

void CpuMlp::pack_weights() {
  for (std::size_t l = 0; l < shape_.layers(); ++l) {
    if (narrow_layer(l))
      pack_narrow_weights(parameters_.data() + layout_.layers[l].weight, shape_.fan_out(l), shape_.fan_in(l), 0,
                          shape_.fan_in(l), packed_weights_[l].data());
  }
}

StepResult CpuMlp::step(const float* images, const std::int32_t* labels, std::size_t batch) {
  const DenormalsFlushed flushed;
  const Clock::time_point start = profile_ != nullptr ? Clock::now() : Clock::time_point{};
  const StepResult result = step_unprofiled(images, labels, batch);
  if (profile_ != nullptr) {
    profile_->step_seconds += seconds_since(start);
    ++profile_->steps;
  }
  return result;
}

StepResult CpuMlp::step_unprofiled(const float* images, const std::int32_t* labels, std::size_t batch) {
  StepResult result;
  {
    // Payloads: the batch's image bytes read, then the parameter bytes updated.
    const nvtx::ScopedRange range(kMlpNvtx, ranges_.forward,
                                  batch * static_cast<std::size_t>(shape_.inputs()) * sizeof(float));
    result = forward(images, labels, batch, true);
  }
  const nvtx::ScopedRange range(kMlpNvtx, ranges_.backward, layout_.total * sizeof(float));
  const Update update = make_update(optimizer_, ++steps_, parameters_.data(), gradients_.data(), first_moment_.data(),
                                    second_moment_.data());
  backward(images, batch, &update);
  return result;
}

}  // namespace hdbench
