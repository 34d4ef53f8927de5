// The element-wise kernels of the GPU training step (lib/mlp_gpu): everything that is
// not a GEMM. Matrices are row-major [rows × width], as in the CPU model. Each
// launcher enqueues on the stream it is given, checks the launch and never waits, so
// every one of them can be captured into a CUDA graph.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hdbench::kernels {

// What the loss reduction writes: the sum over the batch of the per-sample
// cross-entropy (double, summed in a fixed order so eager and graph runs agree to the
// bit) and how many samples were classified correctly.
struct StepScalars {
  double loss_sum;
  unsigned long long correct;
};

// Adam's step count lives on the device: a graph bakes its kernels' arguments, so a
// host-side count would replay the same t forever. advance_adam_step() increments t
// and stores what adam_update() reads, in torch's (and the CPU model's) form:
// step_size = lr / (1-β1^t) and 1/sqrt(1-β2^t), both computed in double.
struct AdamStepState {
  unsigned long long t;
  float step_size;
  float inv_sqrt_bias_correction2;
};

// out[i] = bf16(in[i]) (round to nearest even).
void cast_to_bf16(const float* in, __nv_bfloat16* out, std::size_t count, cudaStream_t stream);

// Uniform values in [low, high) from a counter-based hash of (seed, index): the same
// values on every run, and never all zeros (for GEMM-rate operands).
void fill_uniform(float* out, std::size_t count, std::uint64_t seed, float low, float high, cudaStream_t stream);
void fill_uniform(__nv_bfloat16* out, std::size_t count, std::uint64_t seed, float low, float high,
                  cudaStream_t stream);

// Per row of logits [batch × classes], rows `ld` elements apart (ld ≥ classes: a
// padded output layer): loss[row] = logsumexp(row) - row[label] (a stable
// log-sum-exp), correct[row] = (argmax == label, ties to the lowest index, as the CPU
// model), dlogits = (softmax(row) - onehot(label)) / batch, with the same row stride.
// The padding columns [classes, ld) are masked: never read from the logits, written 0
// in dlogits, so a GEMM reading the padded layout sees zeros there. A label outside
// [0, classes) gives a NaN loss and no onehot term, so it cannot pass unnoticed.
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes, int ld,
                           float* dlogits, float* row_loss, int* row_correct, cudaStream_t stream);
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes, int ld,
                           __nv_bfloat16* dlogits, float* row_loss, int* row_correct, cudaStream_t stream);
// ld = classes.
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes, float* dlogits,
                           float* row_loss, int* row_correct, cudaStream_t stream);
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes,
                           __nv_bfloat16* dlogits, float* row_loss, int* row_correct, cudaStream_t stream);

// Writes (does not accumulate) the sums of row_loss and row_correct over `batch` rows
// into *out, in one block and a fixed order: nothing needs zeroing before a step.
void reduce_step_scalars(const float* row_loss, const int* row_correct, int batch, StepScalars* out,
                         cudaStream_t stream);

// Fallbacks for when cuBLASLt has no algorithm with the fused epilogue, or the plan
// measured the plain GEMM plus these as faster. Rows are `ld` elements apart (ld ≥
// width); the overloads without ld take ld = width.
// y[r][c] = y[r][c] + bias[c], then max(·, 0) when `relu`; in place, c < width only.
void add_bias_activation(float* y, const float* bias, int rows, int width, int ld, bool relu, cudaStream_t stream);
void add_bias_activation(__nv_bfloat16* y, const float* bias, int rows, int width, int ld, bool relu,
                         cudaStream_t stream);
void add_bias_activation(float* y, const float* bias, int rows, int width, bool relu, cudaStream_t stream);
void add_bias_activation(__nv_bfloat16* y, const float* bias, int rows, int width, bool relu, cudaStream_t stream);
// dy[i] = activation[i] > 0 ? dy[i] : 0, in place: the ReLU gradient, with the mask
// taken from the forward output (post-ReLU > 0 exactly when pre-activation > 0).
// Vectorised: 16-byte loads (8 bf16 or 4 fp32 a thread) when both pointers allow
// them, a scalar tail; scalar throughout otherwise.
void relu_gradient(float* dy, const float* activation, std::size_t count, cudaStream_t stream);
void relu_gradient(__nv_bfloat16* dy, const __nv_bfloat16* activation, std::size_t count, cudaStream_t stream);
// db[c] = Σ_r dy[r][c] for c < width, written (not accumulated), in a fixed order (eager
// and graph runs agree to the bit). When the columns alone cannot fill the GPU (a
// 10-wide layer over 8192 rows) and `partials` has room, the rows are split into chunks
// reduced by separate blocks into partials[chunk × width] (fp32), then summed per
// column in chunk order by a second kernel. bias_gradient_partials_needed() says how
// many floats that takes at most.
void bias_gradient(const float* dy, int ld, float* db, int rows, int width, float* partials,
                   std::size_t partial_capacity, cudaStream_t stream);
void bias_gradient(const __nv_bfloat16* dy, int ld, float* db, int rows, int width, float* partials,
                   std::size_t partial_capacity, cudaStream_t stream);
void bias_gradient(const float* dy, float* db, int rows, int width, cudaStream_t stream);
void bias_gradient(const __nv_bfloat16* dy, float* db, int rows, int width, cudaStream_t stream);
// How many row chunks the split bias gradient uses for rows × width (1: not split), and
// the most partial floats any shape up to `width` columns can need.
int bias_gradient_row_chunks(int rows, int width) noexcept;
std::size_t bias_gradient_partials_needed(int width) noexcept;

// dst[c][r] = src[r][c] for r < rows and c < cols: src's rows `src_ld` elements apart,
// dst's `dst_ld` apart (a tf32 weight gradient's layer input made batch-contiguous, so the
// GEMM reads one operand along K). Tiled through shared memory: reads and writes coalesced.
// check_transpose (called first) throws std::invalid_argument for an ld below its width,
// negative sizes or more columns than one grid holds, before anything is launched.
void transpose(const float* src, int rows, int cols, int src_ld, float* dst, int dst_ld, cudaStream_t stream);
void check_transpose(int rows, int cols, int src_ld, int dst_ld);

// Optimizers over the whole flat parameter array (padding included: a zero gradient
// keeps a zero parameter zero). torch.optim semantics, see OptimizerConfig.
// `parameters_bf16` (nullable) receives the bf16 copy the bf16 GEMMs read.
// Vectorised (four elements a thread, 16-byte accesses) when every float array is
// 16-byte aligned and the bf16 copy 8-byte aligned, with a scalar tail; scalar
// otherwise. Both give the same bits (one element expression).
// SGD with heavy-ball momentum: v = momentum·v + g; p -= lr·v.
void sgd_momentum_update(float* parameters, const float* gradients, float* velocity, __nv_bfloat16* parameters_bf16,
                         std::size_t count, float learning_rate, float momentum, cudaStream_t stream);
// t += 1 and the bias corrections for the new t (one thread).
void advance_adam_step(AdamStepState* state, float learning_rate, float beta1, float beta2, cudaStream_t stream);
// m = β1·m + (1-β1)·g; v = β2·v + (1-β2)·g²; p -= step_size·m / (sqrt(v)/sqrt(1-β2^t) + eps),
// which is lr·(m/(1-β1^t)) / (sqrt(v/(1-β2^t)) + eps) as OptimizerConfig states it.
void adam_update(float* parameters, const float* gradients, float* first_moment, float* second_moment,
                 __nv_bfloat16* parameters_bf16, std::size_t count, float beta1, float beta2, float epsilon,
                 const AdamStepState* state, cudaStream_t stream);

}  // namespace hdbench::kernels
