#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>

#include "launch_check.hpp"
#include "mlp_kernels.hpp"
#include "mlp_update.cuh"
#include "splitmix64.hpp"

namespace hdbench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
// Grid-stride kernels: enough blocks to fill an H200 several times over.
constexpr std::size_t kMaxBlocks = 2048;

unsigned grid_for(std::size_t count) {
  std::size_t blocks = (count + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned>(blocks == 0 ? 1 : blocks);
}

__device__ __forceinline__ std::size_t global_index() {
  return blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_stride() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

__device__ __forceinline__ float load(const float* p) { return *p; }
__device__ __forceinline__ float load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

__global__ void cast_to_bf16_kernel(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, std::size_t count) {
  for (std::size_t i = global_index(); i < count; i += grid_stride()) out[i] = __float2bfloat16_rn(in[i]);
}

template <typename T>
__global__ void fill_uniform_kernel(T* __restrict__ out, std::size_t count, std::uint64_t seed, float low, float high) {
  const std::uint64_t key = splitmix64(seed);
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    // The top 24 bits: a uniform float in [0, 1) with exactly representable steps.
    const float unit = static_cast<float>(splitmix64(key ^ i) >> 40) * (1.0f / 16777216.0f);
    store(out + i, low + (high - low) * unit);
  }
}

// One warp per row: classes may be 10 or thousands; a warp strides across the row in
// three passes (max/argmax, sum of exponentials, gradient), all in a fixed order.
template <typename G>
__global__ void softmax_cross_entropy_kernel(const float* __restrict__ logits, const std::int32_t* __restrict__ labels,
                                             int batch, int classes, int ld, G* __restrict__ dlogits,
                                             float* __restrict__ row_loss, int* __restrict__ row_correct) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int row = static_cast<int>(blockIdx.x) * (blockDim.x / kWarp) + static_cast<int>(threadIdx.x) / kWarp;
  if (row >= batch) return;  // uniform across the warp: the shuffles below see full warps
  const float* x = logits + static_cast<std::size_t>(row) * ld;

  float best = -INFINITY;
  int best_index = INT_MAX;
  for (int c = lane; c < classes; c += kWarp) {
    const float v = x[c];
    if (v > best) {  // each lane visits increasing c: strict > keeps the lowest index on ties
      best = v;
      best_index = c;
    }
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, best, offset);
    const int other_index = __shfl_xor_sync(0xffffffffu, best_index, offset);
    if (other > best || (other == best && other_index < best_index)) {
      best = other;
      best_index = other_index;
    }
  }

  const int label = labels[row];
  const bool valid = label >= 0 && label < classes;
  // The label's p - 1 cancels when the model is confident; -(sum of the other
  // classes)/sum does not, so that sum is kept apart.
  float sum = 0.0f;
  float others = 0.0f;
  for (int c = lane; c < classes; c += kWarp) {
    const float e = expf(x[c] - best);
    sum += e;
    if (c != label) others += e;
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    others += __shfl_xor_sync(0xffffffffu, others, offset);
  }

  if (lane == 0) {
    row_loss[row] = valid ? logf(sum) - (x[label] - best) : __int_as_float(0x7fc00000);
    row_correct[row] = valid && best_index == label ? 1 : 0;
  }
  const float inverse_sum = 1.0f / sum;
  const float scale = 1.0f / static_cast<float>(batch);
  G* g = dlogits + static_cast<std::size_t>(row) * ld;
  for (int c = lane; c < classes; c += kWarp) {
    const float p = c == label ? -others * inverse_sum : expf(x[c] - best) * inverse_sum;
    store(g + c, p * scale);
  }
  // The padding's mask: no loss, no gradient.
  for (int c = classes + lane; c < ld; c += kWarp) store(g + c, 0.0f);
}

__global__ void reduce_step_scalars_kernel(const float* __restrict__ row_loss, const int* __restrict__ row_correct,
                                           int batch, StepScalars* __restrict__ out) {
  __shared__ double loss[kThreads];
  __shared__ unsigned long long correct[kThreads];
  double l = 0.0;
  unsigned long long c = 0;
  for (int i = static_cast<int>(threadIdx.x); i < batch; i += kThreads) {
    l += static_cast<double>(row_loss[i]);
    c += static_cast<unsigned long long>(row_correct[i]);
  }
  loss[threadIdx.x] = l;
  correct[threadIdx.x] = c;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      loss[threadIdx.x] += loss[threadIdx.x + half];
      correct[threadIdx.x] += correct[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out->loss_sum = loss[0];
    out->correct = correct[0];
  }
}

template <typename T>
__global__ void add_bias_activation_kernel(T* __restrict__ y, const float* __restrict__ bias, int rows, int width,
                                           int ld, bool relu) {
  const std::size_t count = static_cast<std::size_t>(rows) * width;
  const auto w = static_cast<std::size_t>(width);
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    const std::size_t c = i % w;
    T* p = y + (i / w) * static_cast<std::size_t>(ld) + c;
    float v = load(p) + bias[c];
    if (relu) v = fmaxf(v, 0.0f);
    store(p, v);
  }
}

template <typename T>
__global__ void relu_gradient_kernel(T* __restrict__ dy, const T* __restrict__ activation, std::size_t count) {
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    if (!(load(activation + i) > 0.0f)) store(dy + i, 0.0f);
  }
}

// Two bf16 in a 32-bit word: keep each dy half whose activation half is > 0 (a bf16
// is the top half of the float with the same bits, so the test is exact, NaN included).
__device__ __forceinline__ unsigned relu_mask_pair(unsigned activation, unsigned dy) {
  const unsigned low = __uint_as_float(activation << 16) > 0.0f ? 0x0000ffffu : 0u;
  const unsigned high = __uint_as_float(activation & 0xffff0000u) > 0.0f ? 0xffff0000u : 0u;
  return dy & (low | high);
}

// 8 bf16 a thread through 16-byte loads; the last count % 8 elements by the first threads.
__global__ void relu_gradient_bf16x8_kernel(__nv_bfloat16* __restrict__ dy,
                                            const __nv_bfloat16* __restrict__ activation, std::size_t count) {
  const std::size_t vectors = count / 8;
  auto* d = reinterpret_cast<uint4*>(dy);
  const auto* a = reinterpret_cast<const uint4*>(activation);
  for (std::size_t i = global_index(); i < vectors; i += grid_stride()) {
    const uint4 act = a[i];
    uint4 g = d[i];
    g.x = relu_mask_pair(act.x, g.x);
    g.y = relu_mask_pair(act.y, g.y);
    g.z = relu_mask_pair(act.z, g.z);
    g.w = relu_mask_pair(act.w, g.w);
    d[i] = g;
  }
  const std::size_t tail = vectors * 8 + global_index();
  if (tail < count && !(__bfloat162float(activation[tail]) > 0.0f)) dy[tail] = __float2bfloat16_rn(0.0f);
}

// 4 fp32 a thread through 16-byte loads, the same tail rule.
__global__ void relu_gradient_f32x4_kernel(float* __restrict__ dy, const float* __restrict__ activation,
                                           std::size_t count) {
  const std::size_t vectors = count / 4;
  auto* d = reinterpret_cast<float4*>(dy);
  const auto* a = reinterpret_cast<const float4*>(activation);
  for (std::size_t i = global_index(); i < vectors; i += grid_stride()) {
    const float4 act = a[i];
    float4 g = d[i];
    if (!(act.x > 0.0f)) g.x = 0.0f;
    if (!(act.y > 0.0f)) g.y = 0.0f;
    if (!(act.z > 0.0f)) g.z = 0.0f;
    if (!(act.w > 0.0f)) g.w = 0.0f;
    d[i] = g;
  }
  const std::size_t tail = vectors * 4 + global_index();
  if (tail < count && !(activation[tail] > 0.0f)) dy[tail] = 0.0f;
}

// Block (32 × kBiasRows): threadIdx.x picks a column (coalesced across the warp),
// threadIdx.y strides the rows of this block's chunk (blockIdx.y of gridDim.y chunks
// of rows_per_chunk rows); the partial sums meet in shared memory in a fixed order.
// One chunk writes db itself; several write out[chunk × width + column] for
// bias_gradient_chunks_kernel to sum.
constexpr int kBiasRows = 16;
template <typename T>
__global__ void bias_gradient_kernel(const T* __restrict__ dy, int ld, float* __restrict__ out, int rows, int width,
                                     int rows_per_chunk) {
  __shared__ float partial[kBiasRows][kWarp + 1];
  const int column = static_cast<int>(blockIdx.x) * kWarp + static_cast<int>(threadIdx.x);
  const int first = static_cast<int>(blockIdx.y) * rows_per_chunk;
  const int last = min(rows, first + rows_per_chunk);
  float sum = 0.0f;
  if (column < width) {
    for (int r = first + static_cast<int>(threadIdx.y); r < last; r += kBiasRows)
      sum += load(dy + static_cast<std::size_t>(r) * ld + column);
  }
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && column < width) {
    float total = 0.0f;
    for (int k = 0; k < kBiasRows; ++k) total += partial[k][threadIdx.x];
    out[static_cast<std::size_t>(blockIdx.y) * width + column] = total;
  }
}

__global__ void bias_gradient_chunks_kernel(const float* __restrict__ partials, float* __restrict__ db, int width,
                                            int chunks) {
  const int column = static_cast<int>(global_index());
  if (column >= width) return;
  float total = 0.0f;
  for (int k = 0; k < chunks; ++k) total += partials[static_cast<std::size_t>(k) * width + column];
  db[column] = total;
}

// Split rows only where the column blocks leave the GPU idle: aim at ~256 blocks, at
// least 64 rows a chunk, at most kMaxBiasChunks chunks.
constexpr int kBiasTargetBlocks = 256;
constexpr int kMinRowsPerChunk = 64;
constexpr int kMaxBiasChunks = 64;
int chunk_cap(int width) {
  const int column_blocks = (width + kWarp - 1) / kWarp;
  return std::min(kMaxBiasChunks, (kBiasTargetBlocks + column_blocks - 1) / column_blocks);
}

// The optimizers, one element at a time: the scalar kernels, the vector kernels' four
// lanes and their tails all call these, so every path gives the same bits.
__device__ __forceinline__ void sgd_momentum_one(float& parameter, float& velocity, float gradient, float learning_rate,
                                                 float momentum) {
  const SgdMomentumElement e = sgd_momentum_element(parameter, velocity, gradient, learning_rate, momentum);
  parameter = e.parameter;
  velocity = e.velocity;
}

__device__ __forceinline__ void adam_one(float& parameter, float& first, float& second, float gradient, float beta1,
                                         float beta2, float epsilon, float step_size, float inv_sqrt_bias_correction2) {
  first = beta1 * first + (1.0f - beta1) * gradient;
  second = beta2 * second + (1.0f - beta2) * gradient * gradient;
  parameter = parameter - step_size * first / (sqrtf(second) * inv_sqrt_bias_correction2 + epsilon);
}

// Four bf16 copies of the updated parameters in one 8-byte store.
struct alignas(8) Bf16x4 {
  __nv_bfloat162 low;
  __nv_bfloat162 high;
};
__device__ __forceinline__ void store_bf16x4(__nv_bfloat16* out, const float4& p) {
  *reinterpret_cast<Bf16x4*>(out) = {__floats2bfloat162_rn(p.x, p.y), __floats2bfloat162_rn(p.z, p.w)};
}

// Element i of the arrays, loaded, updated and stored: the scalar kernel's body and the
// vector kernel's tail.
__device__ __forceinline__ void sgd_momentum_at(std::size_t i, float* __restrict__ parameters,
                                                const float* __restrict__ gradients, float* __restrict__ velocity,
                                                __nv_bfloat16* __restrict__ parameters_bf16, float learning_rate,
                                                float momentum) {
  float p = parameters[i];
  float v = velocity[i];
  sgd_momentum_one(p, v, gradients[i], learning_rate, momentum);
  velocity[i] = v;
  parameters[i] = p;
  if (parameters_bf16 != nullptr) parameters_bf16[i] = __float2bfloat16_rn(p);
}

__global__ void sgd_momentum_kernel(float* __restrict__ parameters, const float* __restrict__ gradients,
                                    float* __restrict__ velocity, __nv_bfloat16* __restrict__ parameters_bf16,
                                    std::size_t count, float learning_rate, float momentum) {
  for (std::size_t i = global_index(); i < count; i += grid_stride())
    sgd_momentum_at(i, parameters, gradients, velocity, parameters_bf16, learning_rate, momentum);
}

// The update is bound by memory (20-22 bytes a parameter): 16-byte accesses keep four
// times the bytes in flight a thread, for a quarter of the instructions. The scalar
// tail (< 4 elements) rides on the first threads.
__global__ void sgd_momentum_f32x4_kernel(float* __restrict__ parameters, const float* __restrict__ gradients,
                                          float* __restrict__ velocity, __nv_bfloat16* __restrict__ parameters_bf16,
                                          std::size_t count, float learning_rate, float momentum) {
  const std::size_t vectors = count / 4;
  auto* p4 = reinterpret_cast<float4*>(parameters);
  auto* v4 = reinterpret_cast<float4*>(velocity);
  const auto* g4 = reinterpret_cast<const float4*>(gradients);
  for (std::size_t i = global_index(); i < vectors; i += grid_stride()) {
    float4 p = p4[i];
    float4 v = v4[i];
    const float4 g = g4[i];
    sgd_momentum_one(p.x, v.x, g.x, learning_rate, momentum);
    sgd_momentum_one(p.y, v.y, g.y, learning_rate, momentum);
    sgd_momentum_one(p.z, v.z, g.z, learning_rate, momentum);
    sgd_momentum_one(p.w, v.w, g.w, learning_rate, momentum);
    v4[i] = v;
    p4[i] = p;
    if (parameters_bf16 != nullptr) store_bf16x4(parameters_bf16 + 4 * i, p);
  }
  const std::size_t tail = vectors * 4 + global_index();
  if (tail < count) sgd_momentum_at(tail, parameters, gradients, velocity, parameters_bf16, learning_rate, momentum);
}

__global__ void advance_adam_step_kernel(AdamStepState* state, float learning_rate, float beta1, float beta2) {
  const unsigned long long t = state->t + 1;
  state->t = t;
  const double steps = static_cast<double>(t);
  state->step_size = static_cast<float>(learning_rate / (1.0 - pow(static_cast<double>(beta1), steps)));
  state->inv_sqrt_bias_correction2 = static_cast<float>(1.0 / sqrt(1.0 - pow(static_cast<double>(beta2), steps)));
}

// As sgd_momentum_at, for Adam.
__device__ __forceinline__ void adam_at(std::size_t i, float* __restrict__ parameters,
                                        const float* __restrict__ gradients, float* __restrict__ first_moment,
                                        float* __restrict__ second_moment, __nv_bfloat16* __restrict__ parameters_bf16,
                                        float beta1, float beta2, float epsilon, float step_size,
                                        float inv_sqrt_bias_correction2) {
  float p = parameters[i];
  float m = first_moment[i];
  float v = second_moment[i];
  adam_one(p, m, v, gradients[i], beta1, beta2, epsilon, step_size, inv_sqrt_bias_correction2);
  first_moment[i] = m;
  second_moment[i] = v;
  parameters[i] = p;
  if (parameters_bf16 != nullptr) parameters_bf16[i] = __float2bfloat16_rn(p);
}

__global__ void adam_kernel(float* __restrict__ parameters, const float* __restrict__ gradients,
                            float* __restrict__ first_moment, float* __restrict__ second_moment,
                            __nv_bfloat16* __restrict__ parameters_bf16, std::size_t count, float beta1, float beta2,
                            float epsilon, const AdamStepState* __restrict__ state) {
  const float step_size = state->step_size;
  const float inv_sqrt_bias_correction2 = state->inv_sqrt_bias_correction2;
  for (std::size_t i = global_index(); i < count; i += grid_stride())
    adam_at(i, parameters, gradients, first_moment, second_moment, parameters_bf16, beta1, beta2, epsilon, step_size,
            inv_sqrt_bias_correction2);
}

// As sgd_momentum_f32x4_kernel: 16-byte accesses (28-30 bytes a parameter), scalar tail.
__global__ void adam_f32x4_kernel(float* __restrict__ parameters, const float* __restrict__ gradients,
                                  float* __restrict__ first_moment, float* __restrict__ second_moment,
                                  __nv_bfloat16* __restrict__ parameters_bf16, std::size_t count, float beta1,
                                  float beta2, float epsilon, const AdamStepState* __restrict__ state) {
  const float step_size = state->step_size;
  const float inv_sqrt_bias_correction2 = state->inv_sqrt_bias_correction2;
  const std::size_t vectors = count / 4;
  auto* p4 = reinterpret_cast<float4*>(parameters);
  auto* m4 = reinterpret_cast<float4*>(first_moment);
  auto* v4 = reinterpret_cast<float4*>(second_moment);
  const auto* g4 = reinterpret_cast<const float4*>(gradients);
  for (std::size_t i = global_index(); i < vectors; i += grid_stride()) {
    float4 p = p4[i];
    float4 m = m4[i];
    float4 v = v4[i];
    const float4 g = g4[i];
    adam_one(p.x, m.x, v.x, g.x, beta1, beta2, epsilon, step_size, inv_sqrt_bias_correction2);
    adam_one(p.y, m.y, v.y, g.y, beta1, beta2, epsilon, step_size, inv_sqrt_bias_correction2);
    adam_one(p.z, m.z, v.z, g.z, beta1, beta2, epsilon, step_size, inv_sqrt_bias_correction2);
    adam_one(p.w, m.w, v.w, g.w, beta1, beta2, epsilon, step_size, inv_sqrt_bias_correction2);
    m4[i] = m;
    v4[i] = v;
    p4[i] = p;
    if (parameters_bf16 != nullptr) store_bf16x4(parameters_bf16 + 4 * i, p);
  }
  const std::size_t tail = vectors * 4 + global_index();
  if (tail < count)
    adam_at(tail, parameters, gradients, first_moment, second_moment, parameters_bf16, beta1, beta2, epsilon, step_size,
            inv_sqrt_bias_correction2);
}

template <typename G>
void launch_softmax(const float* logits, const std::int32_t* labels, int batch, int classes, int ld, G* dlogits,
                    float* row_loss, int* row_correct, cudaStream_t stream) {
  if (batch <= 0 || classes <= 0) return;
  if (ld < classes) throw std::invalid_argument("softmax_cross_entropy: ld below the class count");
  constexpr int kRowsPerBlock = kThreads / kWarp;
  const unsigned blocks = static_cast<unsigned>((batch + kRowsPerBlock - 1) / kRowsPerBlock);
  softmax_cross_entropy_kernel<G>
      <<<blocks, kThreads, 0, stream>>>(logits, labels, batch, classes, ld, dlogits, row_loss, row_correct);
  check_launch("softmax_cross_entropy_kernel");
}

// A 32x32 tile of src read along its rows and written along dst's rows, through shared
// memory (one column of padding keeps the transposed reads off a single bank): both the
// global reads and writes are coalesced. Blocks of 32x8 threads, four elements a thread;
// x tiles the rows of src, y its columns.
constexpr int kTile = 32;
constexpr int kTileRowsPerPass = 8;

__global__ void transpose_kernel(const float* __restrict__ src, int rows, int cols, std::int64_t src_ld,
                                 float* __restrict__ dst, std::int64_t dst_ld) {
  __shared__ float tile[kTile][kTile + 1];
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
  for (int i = static_cast<int>(threadIdx.y); i < kTile; i += kTileRowsPerPass) {
    const std::int64_t r = r0 + i;
    const std::int64_t c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[i][threadIdx.x] = src[r * src_ld + c];
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.y); i < kTile; i += kTileRowsPerPass) {
    const std::int64_t c = c0 + i;
    const std::int64_t r = r0 + threadIdx.x;
    if (c < cols && r < rows) dst[c * dst_ld + r] = tile[threadIdx.x][i];
  }
}

template <typename T>
void launch_bias_activation(T* y, const float* bias, int rows, int width, int ld, bool relu, cudaStream_t stream) {
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(width);
  if (count == 0) return;
  if (ld < width) throw std::invalid_argument("add_bias_activation: ld below the width");
  add_bias_activation_kernel<T><<<grid_for(count), kThreads, 0, stream>>>(y, bias, rows, width, ld, relu);
  check_launch("add_bias_activation_kernel");
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The vector optimizer kernels read and write four floats (16 bytes) and four bf16
// copies (8 bytes) at a time.
bool optimizer_vectorisable(std::initializer_list<const float*> arrays, const __nv_bfloat16* copy) {
  const bool floats_aligned = std::all_of(arrays.begin(), arrays.end(), [](const float* p) { return aligned16(p); });
  return floats_aligned && (copy == nullptr || reinterpret_cast<std::uintptr_t>(copy) % 8 == 0);
}

template <typename T>
void launch_relu_gradient(T* dy, const T* activation, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  constexpr std::size_t kPerThread = 16 / sizeof(T);
  if (aligned16(dy) && aligned16(activation)) {
    // The tail (< kPerThread elements) rides on the first threads: at least one block.
    const unsigned blocks = grid_for(count / kPerThread);
    if constexpr (sizeof(T) == 2) {
      relu_gradient_bf16x8_kernel<<<blocks, kThreads, 0, stream>>>(dy, activation, count);
      check_launch("relu_gradient_bf16x8_kernel");
    } else {
      relu_gradient_f32x4_kernel<<<blocks, kThreads, 0, stream>>>(dy, activation, count);
      check_launch("relu_gradient_f32x4_kernel");
    }
    return;
  }
  relu_gradient_kernel<T><<<grid_for(count), kThreads, 0, stream>>>(dy, activation, count);
  check_launch("relu_gradient_kernel");
}

template <typename T>
void launch_bias_gradient(const T* dy, int ld, float* db, int rows, int width, float* partials,
                          std::size_t partial_capacity, cudaStream_t stream) {
  if (width <= 0) return;
  if (ld < width) throw std::invalid_argument("bias_gradient: ld below the width");
  const unsigned column_blocks = static_cast<unsigned>((width + kWarp - 1) / kWarp);
  int chunks = bias_gradient_row_chunks(rows, width);
  if (partials == nullptr || static_cast<std::size_t>(chunks) * static_cast<std::size_t>(width) > partial_capacity)
    chunks = 1;
  const int rows_per_chunk = chunks == 1 ? std::max(rows, 1) : (rows + chunks - 1) / chunks;
  float* out = chunks == 1 ? db : partials;
  bias_gradient_kernel<T><<<dim3(column_blocks, static_cast<unsigned>(chunks)), dim3(kWarp, kBiasRows), 0, stream>>>(
      dy, ld, out, rows, width, rows_per_chunk);
  check_launch("bias_gradient_kernel");
  if (chunks == 1) return;
  bias_gradient_chunks_kernel<<<grid_for(static_cast<std::size_t>(width)), kThreads, 0, stream>>>(partials, db, width,
                                                                                                  chunks);
  check_launch("bias_gradient_chunks_kernel");
}

template <typename T>
void launch_fill(T* out, std::size_t count, std::uint64_t seed, float low, float high, cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_kernel<T><<<grid_for(count), kThreads, 0, stream>>>(out, count, seed, low, high);
  check_launch("fill_uniform_kernel");
}

}  // namespace

void transpose(const float* src, int rows, int cols, int src_ld, float* dst, int dst_ld, cudaStream_t stream) {
  check_transpose(rows, cols, src_ld, dst_ld);
  if (rows == 0 || cols == 0) return;
  const dim3 grid(static_cast<unsigned>((rows + kTile - 1) / kTile), static_cast<unsigned>((cols + kTile - 1) / kTile));
  transpose_kernel<<<grid, dim3(kTile, kTileRowsPerPass), 0, stream>>>(src, rows, cols, src_ld, dst, dst_ld);
  check_launch("transpose_kernel");
}

void check_transpose(int rows, int cols, int src_ld, int dst_ld) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("transpose: negative rows or columns");
  if (src_ld < cols) throw std::invalid_argument("transpose: the source's ld is below its columns");
  if (dst_ld < rows) throw std::invalid_argument("transpose: the destination's ld is below the source's rows");
  // The grid's y dimension holds 65535 tiles of columns.
  if ((cols + kTile - 1) / kTile > 65535) throw std::invalid_argument("transpose: more than 2097120 columns");
}

void cast_to_bf16(const float* in, __nv_bfloat16* out, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  cast_to_bf16_kernel<<<grid_for(count), kThreads, 0, stream>>>(in, out, count);
  check_launch("cast_to_bf16_kernel");
}

void fill_uniform(float* out, std::size_t count, std::uint64_t seed, float low, float high, cudaStream_t stream) {
  launch_fill(out, count, seed, low, high, stream);
}
void fill_uniform(__nv_bfloat16* out, std::size_t count, std::uint64_t seed, float low, float high,
                  cudaStream_t stream) {
  launch_fill(out, count, seed, low, high, stream);
}

void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes, int ld,
                           float* dlogits, float* row_loss, int* row_correct, cudaStream_t stream) {
  launch_softmax(logits, labels, batch, classes, ld, dlogits, row_loss, row_correct, stream);
}
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes, int ld,
                           __nv_bfloat16* dlogits, float* row_loss, int* row_correct, cudaStream_t stream) {
  launch_softmax(logits, labels, batch, classes, ld, dlogits, row_loss, row_correct, stream);
}
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes, float* dlogits,
                           float* row_loss, int* row_correct, cudaStream_t stream) {
  launch_softmax(logits, labels, batch, classes, classes, dlogits, row_loss, row_correct, stream);
}
void softmax_cross_entropy(const float* logits, const std::int32_t* labels, int batch, int classes,
                           __nv_bfloat16* dlogits, float* row_loss, int* row_correct, cudaStream_t stream) {
  launch_softmax(logits, labels, batch, classes, classes, dlogits, row_loss, row_correct, stream);
}

void reduce_step_scalars(const float* row_loss, const int* row_correct, int batch, StepScalars* out,
                         cudaStream_t stream) {
  reduce_step_scalars_kernel<<<1, kThreads, 0, stream>>>(row_loss, row_correct, batch, out);
  check_launch("reduce_step_scalars_kernel");
}

void add_bias_activation(float* y, const float* bias, int rows, int width, int ld, bool relu, cudaStream_t stream) {
  launch_bias_activation(y, bias, rows, width, ld, relu, stream);
}
void add_bias_activation(__nv_bfloat16* y, const float* bias, int rows, int width, int ld, bool relu,
                         cudaStream_t stream) {
  launch_bias_activation(y, bias, rows, width, ld, relu, stream);
}
void add_bias_activation(float* y, const float* bias, int rows, int width, bool relu, cudaStream_t stream) {
  launch_bias_activation(y, bias, rows, width, width, relu, stream);
}
void add_bias_activation(__nv_bfloat16* y, const float* bias, int rows, int width, bool relu, cudaStream_t stream) {
  launch_bias_activation(y, bias, rows, width, width, relu, stream);
}

void relu_gradient(float* dy, const float* activation, std::size_t count, cudaStream_t stream) {
  launch_relu_gradient(dy, activation, count, stream);
}
void relu_gradient(__nv_bfloat16* dy, const __nv_bfloat16* activation, std::size_t count, cudaStream_t stream) {
  launch_relu_gradient(dy, activation, count, stream);
}

void bias_gradient(const float* dy, int ld, float* db, int rows, int width, float* partials,
                   std::size_t partial_capacity, cudaStream_t stream) {
  launch_bias_gradient(dy, ld, db, rows, width, partials, partial_capacity, stream);
}
void bias_gradient(const __nv_bfloat16* dy, int ld, float* db, int rows, int width, float* partials,
                   std::size_t partial_capacity, cudaStream_t stream) {
  launch_bias_gradient(dy, ld, db, rows, width, partials, partial_capacity, stream);
}
void bias_gradient(const float* dy, float* db, int rows, int width, cudaStream_t stream) {
  launch_bias_gradient(dy, width, db, rows, width, nullptr, 0, stream);
}
void bias_gradient(const __nv_bfloat16* dy, float* db, int rows, int width, cudaStream_t stream) {
  launch_bias_gradient(dy, width, db, rows, width, nullptr, 0, stream);
}

int bias_gradient_row_chunks(int rows, int width) noexcept {
  if (rows < 2 * kMinRowsPerChunk || width <= 0) return 1;
  return std::max(1, std::min(chunk_cap(width), rows / kMinRowsPerChunk));
}

std::size_t bias_gradient_partials_needed(int width) noexcept {
  if (width <= 0) return 0;
  const int cap = chunk_cap(width);
  return cap > 1 ? static_cast<std::size_t>(cap) * static_cast<std::size_t>(width) : 0;
}

void sgd_momentum_update(float* parameters, const float* gradients, float* velocity, __nv_bfloat16* parameters_bf16,
                         std::size_t count, float learning_rate, float momentum, cudaStream_t stream) {
  if (count == 0) return;
  if (optimizer_vectorisable({parameters, gradients, velocity}, parameters_bf16)) {
    sgd_momentum_f32x4_kernel<<<grid_for(count / 4), kThreads, 0, stream>>>(
        parameters, gradients, velocity, parameters_bf16, count, learning_rate, momentum);
    check_launch("sgd_momentum_f32x4_kernel");
    return;
  }
  sgd_momentum_kernel<<<grid_for(count), kThreads, 0, stream>>>(parameters, gradients, velocity, parameters_bf16, count,
                                                                learning_rate, momentum);
  check_launch("sgd_momentum_kernel");
}

void advance_adam_step(AdamStepState* state, float learning_rate, float beta1, float beta2, cudaStream_t stream) {
  advance_adam_step_kernel<<<1, 1, 0, stream>>>(state, learning_rate, beta1, beta2);
  check_launch("advance_adam_step_kernel");
}

void adam_update(float* parameters, const float* gradients, float* first_moment, float* second_moment,
                 __nv_bfloat16* parameters_bf16, std::size_t count, float beta1, float beta2, float epsilon,
                 const AdamStepState* state, cudaStream_t stream) {
  if (count == 0) return;
  if (optimizer_vectorisable({parameters, gradients, first_moment, second_moment}, parameters_bf16)) {
    adam_f32x4_kernel<<<grid_for(count / 4), kThreads, 0, stream>>>(
        parameters, gradients, first_moment, second_moment, parameters_bf16, count, beta1, beta2, epsilon, state);
    check_launch("adam_f32x4_kernel");
    return;
  }
  adam_kernel<<<grid_for(count), kThreads, 0, stream>>>(parameters, gradients, first_moment, second_moment,
                                                        parameters_bf16, count, beta1, beta2, epsilon, state);
  check_launch("adam_kernel");
}

}  // namespace hdbench::kernels
